package io.sluice.dispatcher.provider;

import io.sluice.config.TenantEndpoint;
import java.net.URI;
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

  /**
   * This provider calling a tenant's own endpoint ({@code endpoints: perTenant}) instead of its
   * configured URL; the endpoint comes from the configuration, never from an event. An in-process
   * handler has no URL: it is itself.
   */
  default Provider toward(URI endpoint) {
    return this;
  }

  /**
   * This provider calling a tenant's own endpoint, with what the endpoint carries besides its URL
   * (its own signing secret, whether the provider's credential goes to it). An in-process handler
   * has no URL: {@link #toward(URI)}.
   */
  default Provider toward(TenantEndpoint endpoint) {
    return toward(endpoint.url());
  }

  @Override
  default void close() {}
}
