package io.sluice.dispatcher.provider;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A body handler that keeps at most {@code limit} bytes of a response body: what comes after is
 * read and dropped, as {@code BodyHandlers.discarding()} drops all of it, so the connection stays
 * reusable and memory holds {@code limit} bytes per call whatever the provider sends. A limit of 0
 * keeps nothing.
 */
public final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
  private final int limit;
  private final ByteArrayOutputStream kept;
  private final CompletableFuture<byte[]> result = new CompletableFuture<>();

  private BoundedBody(int limit) {
    this.limit = limit;
    this.kept = new ByteArrayOutputStream(Math.min(limit, 1024));
  }

  /** A handler keeping at most {@code limit} bytes of each body. */
  public static HttpResponse.BodyHandler<byte[]> handler(int limit) {
    return info -> new BoundedBody(limit);
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    subscription.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    for (ByteBuffer b : buffers) {
      int take = Math.min(b.remaining(), limit - kept.size());
      if (take > 0) {
        byte[] chunk = new byte[take];
        b.get(chunk);
        kept.write(chunk, 0, take);
      }
    }
  }

  @Override
  public void onError(Throwable throwable) {
    // As BodyHandlers.discarding() does: a body cut short fails the call (a connection error).
    result.completeExceptionally(throwable);
  }

  @Override
  public void onComplete() {
    result.complete(kept.toByteArray());
  }
}
