package io.sluice.redis;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What an asynchronous command really failed with, under the wrappers futures put around it. */
final class AsyncFailure {
  private AsyncFailure() {}

  /**
   * {@code t} without its {@link CompletionException} and {@link ExecutionException} wrappers
   * (a Lettuce command's own exception, such as a timeout or NOSCRIPT, is the first other one).
   */
  public static Throwable cause(Throwable t) {
    Throwable e = t;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
