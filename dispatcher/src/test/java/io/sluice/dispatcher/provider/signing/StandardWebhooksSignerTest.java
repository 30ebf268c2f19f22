package io.sluice.dispatcher.provider.signing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.sluice.config.Secret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A signing secret held in a file (a Kubernetes secret mount) is rotated in place while the
 * dispatcher runs. The wire format itself is checked against the reference library in
 * {@link StandardWebhooksReferenceIT}; here, what the signer does when the file changes.
 */
class StandardWebhooksSignerTest {
  private static final String K1 = whsec(1);
  private static final String K2 = whsec(2);
  private static final byte[] BODY = "{\"order\":7}".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;
  private final AtomicLong nanos = new AtomicLong();

  private static String whsec(long seed) {
    byte[] key = new byte[32];
    new Random(seed).nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }

  private static String signedWith(String secret) {
    return new StandardWebhooksSigner(List.of(Secret.literal(secret))).signature("evt-1", 1700000000L, BODY);
  }

  private StandardWebhooksSigner signerOnFile(Path file) {
    return new StandardWebhooksSigner(
        List.of(Secret.resolve("${file:" + file + "}", Map.of(), nanos::get)));
  }

  private void rotate(Path file, String text) throws Exception {
    Files.writeString(file, text);
    nanos.addAndGet(Secret.RECHECK.plus(Duration.ofMillis(1)).toNanos());
  }

  @Test
  void signsWithTheFilesNewKeyOnceTheFileIsReadAgain() throws Exception {
    Path file = dir.resolve("whsec");
    Files.writeString(file, K1);
    StandardWebhooksSigner signer = signerOnFile(file);
    assertEquals(signedWith(K1), signer.signature("evt-1", 1700000000L, BODY));

    rotate(file, K2);

    assertEquals(signedWith(K2), signer.signature("evt-1", 1700000000L, BODY));
    assertNotEquals(signedWith(K1), signedWith(K2));
  }

  @Test
  void aFileRotatedToTextThatIsNoSecretKeepsTheLastKeyInsteadOfFailingEveryCall() throws Exception {
    // A typo, or the key pasted without its whsec_ prefix: the events are not at fault, and a
    // failure here would dead-letter every one of them as invalid until someone fixed the file.
    Path file = dir.resolve("whsec");
    Files.writeString(file, K1);
    StandardWebhooksSigner signer = signerOnFile(file);

    rotate(file, K2.substring("whsec_".length()));
    assertEquals(signedWith(K1), signer.signature("evt-1", 1700000000L, BODY),
        "still signed with the last valid key");

    rotate(file, K2);
    assertEquals(signedWith(K2), signer.signature("evt-1", 1700000000L, BODY),
        "the corrected file is used as soon as it is read");
  }
}
