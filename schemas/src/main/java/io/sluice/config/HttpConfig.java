package io.sluice.config;

/**
 * @param port where /metrics and /health are served
 * @param bind the address the ops server listens on: {@code 127.0.0.1} by default, so that it is
 *             not reachable from other hosts unless asked for ({@code 0.0.0.0} in a container)
 */
public record HttpConfig(int port, String bind) {
  public HttpConfig(int port) {
    this(port, ConfigDefaults.HTTP_BIND);
  }
}
