package io.sluice.dispatcher.provider;

import java.net.InetAddress;

/**
 * A provider whose connections go only to the address pinned for its host ({@link HttpProvider}
 * toward a tenant's endpoint, through its {@link PinnedTunnel}): the endpoint guard pins the
 * address it checked, so the address checked is the address connected to.
 */
public interface Pinnable {
  /** This endpoint's connections from now go to {@code address}, which the caller checked. */
  void pin(InetAddress address);
}
