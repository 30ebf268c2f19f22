package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.provider.BatchBody;
import io.sluice.dispatcher.provider.PayloadBytes;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How a lane hands an entry to its provider, and reads what came back. A call always ends in a
 * {@link ProviderResult}: a provider that throws, or whose call fails, has failed to connect, so
 * every call is judged and settled like any other, and never lost to an exception.
 */
final class LaneCall {
  private LaneCall() {}

  /** Starts the call of {@code entry}, its next attempt; never throws. */
  static CompletionStage<ProviderResult> start(Provider provider, DispatchEntry entry,
      String traceparent) {
    try {
      return provider.call(new ProviderCall(entry.event().id(), entry.event().path(),
          PayloadBytes.of(entry.value()), entry.event().attributes(), entry.attempts() + 1,
          entry.event().cost(), traceparent));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(
          new ProviderResult.ConnectFailed("provider threw " + e));
    }
  }

  /**
   * Starts the call of a batch ({@link BatchBody}): the array of {@code payloads}, in the order of
   * {@code entries}, under the key of their ids, at the summed cost; the path and attributes are
   * the first's (every event of a batch has the same: {@link BatchFill}); its attempt is the
   * highest of theirs. Never throws.
   */
  static CompletionStage<ProviderResult> startBatch(Provider provider, List<DispatchEntry> entries,
      List<byte[]> payloads) {
    try {
      List<String> ids = new ArrayList<>(entries.size());
      long cost = 0;
      int attempt = 0;
      for (DispatchEntry e : entries) {
        ids.add(e.event().id());
        cost += e.event().cost();
        attempt = Math.max(attempt, e.attempts() + 1);
      }
      DispatchEntry first = entries.get(0);
      return provider.call(new ProviderCall(BatchBody.key(ids), first.event().path(),
          BatchBody.of(payloads), first.event().attributes(), attempt, cost, ids));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(
          new ProviderResult.ConnectFailed("provider threw " + e));
    }
  }

  /** What the call's completion says: its result, or a failed connection for its error. */
  static ProviderResult result(ProviderResult result, Throwable error) {
    return error == null ? result : new ProviderResult.ConnectFailed("provider failed: " + error);
  }

  /**
   * The provider answered with a 2xx. Only these time the process ({@code PaceGovernor}): a
   * provider answering 4xx fast and 2xx slowly would otherwise have a usual latency between the
   * two, and every 2xx would read as held up in this process.
   */
  static boolean succeeded(ProviderResult result) {
    return result instanceof ProviderResult.Answered a && a.status() / 100 == 2;
  }
}
