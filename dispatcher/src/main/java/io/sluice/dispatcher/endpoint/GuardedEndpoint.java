package io.sluice.dispatcher.endpoint;

import io.sluice.config.EndpointHosts;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A tenant's endpoint behind the address guard: before every call its host is resolved and the
 * call goes only if none of the addresses is internal ({@link EndpointHosts#refusal(List)}).
 * Checked at every call, not once at start-up, because a name a tenant controls can be pointed
 * at 127.0.0.1 or 169.254.169.254 after the configuration was checked (DNS rebinding).
 *
 * <p>The lookup runs on {@code lookups}, never on the lanes' timer (a slow resolver would hold
 * every lane's slots). The HTTP client resolves the name again when it connects; it gets the
 * answer checked here from the JVM's own cache of lookups ({@code networkaddress.cache.ttl}, 30 s
 * by default), so the guard holds as long as that cache is not turned off. A refused address is
 * a connection error: the call is never made, the event is retried, and an endpoint refused for
 * {@code disableAfter} is disabled like any failing one.
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
  private final Resolver resolver;
  private final Executor lookups;

  public GuardedEndpoint(Provider endpoint, String host, Resolver resolver, Executor lookups) {
    this.endpoint = endpoint;
    this.host = host.startsWith("[") && host.endsWith("]")
        ? host.substring(1, host.length() - 1) : host;
    this.resolver = resolver;
    this.lookups = lookups;
  }

  @Override
  public CompletionStage<ProviderResult> call(ProviderCall call) {
    return CompletableFuture.supplyAsync(this::refusal, lookups).thenCompose(why -> why.isPresent()
        ? CompletableFuture.completedFuture(new ProviderResult.ConnectFailed(why.get()))
        : endpoint.call(call));
  }

  /** Why the endpoint may not be called now, or empty. */
  private Optional<String> refusal() {
    try {
      return EndpointHosts.refusal(resolver.resolve(host))
          .map(why -> "endpoint " + host + " refused: it resolves to an address that is " + why);
    } catch (UnknownHostException e) {
      return Optional.of("endpoint " + host + " does not resolve");
    } catch (RuntimeException e) {
      return Optional.of("endpoint " + host + " could not be resolved (" + e + ")");
    }
  }

  @Override
  public void close() {
    endpoint.close();
  }
}
