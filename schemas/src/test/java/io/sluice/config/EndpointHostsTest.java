package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.Inet6Address;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The guard in front of tenants' endpoints: hosts by pattern, addresses by range, no lookup. */
class EndpointHostsTest {

  @ParameterizedTest(name = "{0} is refused")
  @ValueSource(strings = {
      // IPv4: private, loopback, link-local (cloud metadata), CGNAT, unspecified, multicast, reserved
      "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.254", "192.168.1.1",
      "127.0.0.1", "127.255.0.3", "169.254.169.254", "100.64.0.1", "100.127.255.255",
      "0.0.0.0", "0.1.2.3", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
      "192.0.0.8", "192.0.2.1", "198.18.0.1", "198.19.255.1", "198.51.100.1", "203.0.113.7",
      // IPv6: loopback, unspecified, unique local, link-local, site-local, multicast, reserved
      "[::1]", "[::]", "[fc00::1]", "[fd12:3456::1]", "[fd00:ec2::254]", "[fe80::1]",
      "[febf::1]", "[fec0::1]", "[ff02::1]", "[2001:db8::1]", "[100::1]", "[2001::1]",
      "[64:ff9b:1::1]",
      // IPv6 carrying an internal IPv4 address: mapped, compatible, NAT64, 6to4
      "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::ffff:10.0.0.1]", "[::ffff:169.254.169.254]",
      "[::127.0.0.1]", "[::10.1.2.3]", "[64:ff9b::a00:1]", "[64:ff9b::127.0.0.1]",
      "[2002:7f00:1::]", "[2002:a9fe:a9fe::1]",
      // numbers a resolver may read as an internal address
      "2130706433", "017700000001", "0x7f000001", "127.1", "127.0.1", "0177.0.0.1",
      "0x7f.0.0.1", "010.0.0.1", "0", "0x0",
      // names of this host
      "localhost", "LOCALHOST", "localhost.", "api.localhost"})
  void shouldRefuseInternalAndAmbiguousHostsWithoutALookup(String host) {
    assertTrue(EndpointHosts.literalRefusal(host).isPresent(), host);
  }

  @ParameterizedTest(name = "{0} is let through to its lookup")
  @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "100.63.255.255",
      "100.128.0.1", "169.253.1.1", "192.167.1.1", "223.255.255.255", "[2606:4700:4700::1111]",
      "[::ffff:8.8.8.8]", "[64:ff9b::808:808]", "[2002:808:808::1]", "hooks.example.com",
      "acme.example", "cafe.de", "1.example", "0x.example", "example.com."})
  void shouldLetPublicAddressesAndNamesThrough(String host) {
    assertEquals(Optional.empty(), EndpointHosts.literalRefusal(host), host);
  }

  @Test
  void shouldSayWhyAnAddressIsRefused() {
    assertEquals(Optional.of("link-local (169.254.0.0/16)"),
        EndpointHosts.literalRefusal("169.254.169.254"));
    assertEquals(Optional.of("loopback (127.0.0.0/8)"), // the JDK reads it as IPv4 itself
        EndpointHosts.literalRefusal("[::ffff:127.0.0.1]"));
  }

  @Test
  void shouldJudgeAnIpv4MappedAddressTheJdkKeepsAsIpv6ByTheIpv4ItCarries() throws Exception {
    byte[] mapped = new byte[16];
    mapped[10] = (byte) 0xff;
    mapped[11] = (byte) 0xff;
    mapped[12] = 10;
    mapped[15] = 1;
    InetAddress v6 = Inet6Address.getByAddress(null, mapped, null);

    assertTrue(v6 instanceof Inet6Address, "the JDK keeps an address built this way as IPv6");
    assertEquals(Optional.of("private, IPv4-mapped"), EndpointHosts.refusal(v6));
  }

  @Test
  void shouldRefuseANameWhenAnyOfItsAddressesIsInternal() throws Exception {
    List<InetAddress> rebinding = List.of(InetAddress.getByName("93.184.216.34"),
        InetAddress.getByName("127.0.0.1"));

    assertEquals(Optional.of("loopback (127.0.0.0/8) (127.0.0.1)"),
        EndpointHosts.refusal(rebinding));
    assertEquals(Optional.empty(),
        EndpointHosts.refusal(List.of(InetAddress.getByName("93.184.216.34"))));
    assertEquals(Optional.of("no address"), EndpointHosts.refusal(List.of()));
  }

  @Test
  void shouldMatchHostsExactlyOrBelowAWildcardDomain() {
    List<String> patterns = List.of("hooks.partner.example", "*.customers.example");

    assertTrue(EndpointHosts.allowed("hooks.partner.example", patterns));
    assertTrue(EndpointHosts.allowed("HOOKS.partner.example.", patterns));
    assertTrue(EndpointHosts.allowed("acme.customers.example", patterns));
    assertTrue(EndpointHosts.allowed("eu.acme.customers.example", patterns));
    assertFalse(EndpointHosts.allowed("customers.example", patterns), "a wildcard is below only");
    assertFalse(EndpointHosts.allowed("evilcustomers.example", patterns));
    assertFalse(EndpointHosts.allowed("customers.example.evil", patterns));
    assertFalse(EndpointHosts.allowed("x.hooks.partner.example", patterns));
    assertTrue(EndpointHosts.allowed("anything.example", List.of()), "no patterns: any host");
  }
}
