package io.sluice.dispatcher.provider;

import java.util.concurrent.CompletionStage;

/**
 * Something the dispatcher calls with an event: an HTTP endpoint ({@link HttpProvider}) or an
 * in-process job handler. Calls are asynchronous: the dispatcher never holds a thread per call.
 *
 * <p>Implementations complete the stage with a {@link ProviderResult} and do not complete it
 * exceptionally for the failures a provider is expected to have (an error status, a timeout, a
 * refused connection): those are results, and the dispatcher decides what each one means. An
 * exceptional completion is treated as a connection error.
 */
public interface Provider extends AutoCloseable {
  CompletionStage<ProviderResult> call(ProviderCall call);

  @Override
  default void close() {}
}
