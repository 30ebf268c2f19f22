package io.sluice.dispatcher.endpoint;

import io.sluice.config.EndpointHosts;
import io.sluice.dispatcher.provider.Pinnable;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A tenant's endpoint behind the address guard: before every call its host is resolved once
 * ({@link EndpointLookups}: bounded in time, apart per host), every address is checked
 * ({@link EndpointHosts#refusal(List)}), and the call is made only if none is internal, pinned
 * to the first of the addresses checked ({@link Pinnable#pin}: the client's connections go
 * through {@code PinnedTunnel}, which connects to that address and no other). Checked at every
 * call, not once at start-up, because a name a tenant controls can be pointed at 127.0.0.1 or
 * 169.254.169.254 after the configuration was checked (DNS rebinding); pinned, because the name
 * can be pointed there between the check and the connect, too.
 *
 * <p>The lookup never runs on the lanes' timer (a slow resolver would hold every lane's slots). A
 * refused address, a name that does not resolve in time, is a connection error: the call is
 * never made, the event is retried, and an endpoint refused for {@code disableAfter} is disabled
 * like any failing one.
 */
public final class GuardedEndpoint implements Provider {
  /** Resolves a host name to every address it has now. */
  @FunctionalInterface
  public interface Resolver {
    List<InetAddress> resolve(String host) throws UnknownHostException;

    /** The JVM's resolver (and its cache). */
    Resolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));
  }

  private final Provider endpoint;
  private final String host;
  private final EndpointLookups lookups;

  /**
   * A guard on {@code endpoint}, whose URL names {@code host}, looking it up through
   * {@code lookups}: the process's ({@link EndpointLookups#system()}), shared by every endpoint, so
   * that one tenant's hanging name holds one lookup thread, never another tenant's call.
   */
  public GuardedEndpoint(Provider endpoint, String host, EndpointLookups lookups) {
    this.endpoint = endpoint;
    this.host = host.startsWith("[") && host.endsWith("]")
        ? host.substring(1, host.length() - 1) : host;
    this.lookups = lookups;
  }

  @Override
  public CompletionStage<ProviderResult> call(ProviderCall call) {
    return lookups.resolve(host).handle((addresses, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null
            ? error.getCause() : error;
        return cause instanceof EndpointLookups.NoAnswer none
            ? "endpoint " + host + " could not be resolved (" + none.getMessage() + ")"
            : cause instanceof UnknownHostException ? "endpoint " + host + " does not resolve"
            : "endpoint " + host + " could not be resolved (" + cause + ")";
      }
      String why = EndpointHosts.refusal(addresses)
          .map(w -> "endpoint " + host + " refused: it resolves to an address that is " + w)
          .orElse(null);
      if (why == null && addresses.isEmpty()) {
        return "endpoint " + host + " does not resolve";
      }
      if (why == null && endpoint instanceof Pinnable pinning) {
        pinning.pin(addresses.get(0)); // the address checked is the address connected to
      }
      return why;
    }).thenCompose(why -> why != null
        ? CompletableFuture.completedFuture(new ProviderResult.ConnectFailed(why))
        : endpoint.call(call));
  }

  @Override
  public void close() {
    endpoint.close();
  }
}
