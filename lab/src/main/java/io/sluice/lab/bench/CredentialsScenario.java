package io.sluice.lab.bench;

import io.sluice.dispatcher.provider.auth.Credentials;
import io.sluice.dispatcher.provider.signing.StandardWebhooksSigner;
import io.sluice.config.ProviderAuth;
import io.sluice.config.Secret;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.IntUnaryOperator;

/**
 * The cost per call of a provider's credential and of signing, on the calling thread: what each
 * adds to building a request, measured alone (no network), in nanoseconds per call, single
 * thread, after a warm-up, the best of five rounds. An OAuth2 token is fetched on a thread of its
 * own, off the call path; per call it costs what {@code bearer} does. A {@code ${file:}} secret is read again at most
 * every 2 s; its row includes that.
 */
final class CredentialsScenario implements BenchScenario {
  private static final String WHSEC_A = whsec(1);
  private static final String WHSEC_B = whsec(2);

  @Override
  public String name() {
    return "credentials";
  }

  private static String whsec(long seed) {
    byte[] key = new byte[32];
    new Random(seed).nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(), "cost per call of credentials and signing");
    int calls = ctx.quick() ? 2_000 : 500_000;
    Path dir = Files.createTempDirectory("sluice-bench-secret");
    Path file = dir.resolve("token");
    Files.writeString(file, "file-token-0123456789abcdef");
    try {
      Secret fromFile = Secret.resolve("${file:" + file + "}", Map.of());
      List<Object[]> kinds = List.of(
          kind("bearer", auth(new ProviderAuth.Bearer(Secret.literal("tok-0123456789abcdef")))),
          kind("header", auth(new ProviderAuth.Header("X-Api-Key", Secret.literal("k-0123456789")))),
          kind("basic", auth(new ProviderAuth.Basic(Secret.literal("sluice"),
              Secret.literal("pa55word-0123456789")))),
          kind("bearer from ${file:}", auth(new ProviderAuth.Bearer(fromFile))),
          kind("signing, 1 secret, 1 KiB body", sign(List.of(WHSEC_A), 1024)),
          kind("signing, 2 secrets, 1 KiB body", sign(List.of(WHSEC_A, WHSEC_B), 1024)),
          kind("signing, 1 secret, 64 KiB body", sign(List.of(WHSEC_A), 64 * 1024)));
      for (Object[] k : kinds) {
        IntUnaryOperator work = (IntUnaryOperator) k[1];
        double ns = nanosPerCall(work, calls);
        r.row((String) k[0], "ns per call", Math.round(ns), "calls", calls);
        r.note(String.format(Locale.ROOT, "%s: %,.0f ns per call.", k[0], ns));
      }
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
    return r;
  }

  private static Object[] kind(String label, IntUnaryOperator work) {
    return new Object[] {label, work};
  }

  private static IntUnaryOperator auth(ProviderAuth auth) {
    return i -> Credentials.headerValue(auth).length();
  }

  private static IntUnaryOperator sign(List<String> secrets, int bodyBytes) {
    StandardWebhooksSigner signer =
        new StandardWebhooksSigner(secrets.stream().map(Secret::literal).toList());
    byte[] body = new byte[bodyBytes];
    new Random(3).nextBytes(body);
    return i -> signer.signature("evt_" + i, 1_700_000_000L + i, body).length();
  }

  /**
   * The best of five rounds of {@code calls / 5}, after a warm-up: the machine is shared, and
   * the best round is the one least disturbed by other work (the cost itself does not vary).
   */
  private static double nanosPerCall(IntUnaryOperator work, int calls) {
    int sink = 0;
    for (int i = 0; i < Math.min(calls, 50_000); i++) {
      sink += work.applyAsInt(i);
    }
    double best = Double.MAX_VALUE;
    int round = Math.max(1, calls / 5);
    for (int r = 0; r < 5; r++) {
      long start = System.nanoTime();
      for (int i = 0; i < round; i++) {
        sink += work.applyAsInt(i);
      }
      best = Math.min(best, (System.nanoTime() - start) / (double) round);
    }
    if (sink == 42) {
      System.out.print("");
    }
    return best;
  }
}
