package io.sluice.dispatcher.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The address guard at call time: a name resolving to an internal address is never called. */
class GuardedEndpointTest {
  private final List<ProviderCall> made = new ArrayList<>();
  private final Provider endpoint = call -> {
    made.add(call);
    return CompletableFuture.completedFuture(new ProviderResult.Answered(200, null));
  };
  private List<InetAddress> dns;

  private ProviderResult call(GuardedEndpoint guarded) {
    return guarded.call(new ProviderCall("e-1", null, new byte[0], Map.of(), 1))
        .toCompletableFuture().join();
  }

  private GuardedEndpoint guarded() {
    return new GuardedEndpoint(endpoint, "hooks.acme.example",
        new EndpointLookups(host -> dns, EndpointLookups.TIMEOUT));
  }

  @Test
  void shouldCallAnEndpointWhoseNameResolvesToPublicAddresses() throws Exception {
    dns = List.of(InetAddress.getByName("93.184.216.34"));

    assertEquals(new ProviderResult.Answered(200, null), call(guarded()));
    assertEquals(1, made.size());
  }

  @Test
  void shouldRefuseWithoutCallingWhenTheNameWasReboundToAnInternalAddress() throws Exception {
    GuardedEndpoint guarded = guarded();
    dns = List.of(InetAddress.getByName("93.184.216.34"));
    call(guarded);

    dns = List.of(InetAddress.getByName("169.254.169.254")); // the tenant's DNS changed its answer

    assertEquals(new ProviderResult.ConnectFailed("endpoint hooks.acme.example refused: it "
        + "resolves to an address that is link-local (169.254.0.0/16) (169.254.169.254)"),
        call(guarded));
    assertEquals(1, made.size(), "the second call was never made");
  }

  @Test
  void shouldRefuseWhenAnyAddressIsInternalAndWhenTheNameDoesNotResolve() throws Exception {
    dns = List.of(InetAddress.getByName("93.184.216.34"), InetAddress.getByName("::1"));
    assertEquals(ProviderResult.ConnectFailed.class, call(guarded()).getClass());

    GuardedEndpoint unresolvable = new GuardedEndpoint(endpoint, "gone.example",
        new EndpointLookups(host -> {
          throw new UnknownHostException(host);
        }, EndpointLookups.TIMEOUT));
    assertEquals(new ProviderResult.ConnectFailed("endpoint gone.example does not resolve"),
        call(unresolvable));
    assertEquals(0, made.size());
  }
}
