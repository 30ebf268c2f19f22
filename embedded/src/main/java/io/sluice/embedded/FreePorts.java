package io.sluice.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Finds loopback ports that are free right now. There is an unavoidable race between closing the
 * probe socket and the server binding the port, so callers must detect a failed bind and retry
 * with another port ({@link RedisServerProcess} does).
 */
final class FreePorts {

    /** Redis Cluster nodes listen on their port and on the cluster bus at port + 10000. */
    static final int CLUSTER_BUS_OFFSET = 10_000;

    private static final int MAX_ATTEMPTS = 50;

    private FreePorts() {
    }

    /** A port on 127.0.0.1 that is free now, chosen by the operating system. */
    static int loopback() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not find a free port on 127.0.0.1", e);
        }
    }

    /**
     * A port P such that P and its cluster bus port P + 10000 are both free now. Operating systems
     * hand out ephemeral ports up to 65535, so some candidates are rejected because P + 10000
     * would not be a valid port.
     */
    static int loopbackWithClusterBus() {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            int port = loopback();
            if (port + CLUSTER_BUS_OFFSET <= 65_535 && isFree(port + CLUSTER_BUS_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("Could not find a free port P on 127.0.0.1 with P + "
                + CLUSTER_BUS_OFFSET + " also free after " + MAX_ATTEMPTS + " attempts");
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
