package io.sluice.relay.it;

import java.util.ArrayList;
import java.util.List;

/**
 * Notes every thread that dies of an uncaught exception while installed as the default handler,
 * e.g. a relay whose loop threw; restores the previous handler on close.
 */
final class ThreadDeaths implements AutoCloseable {
  private final Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
  private final List<String> deaths = new ArrayList<>();

  private ThreadDeaths() {}

  static ThreadDeaths watch() {
    ThreadDeaths d = new ThreadDeaths();
    Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
      synchronized (d.deaths) {
        d.deaths.add(thread.getName() + ": " + e);
      }
      if (d.previous != null) {
        d.previous.uncaughtException(thread, e);
      } else {
        e.printStackTrace();
      }
    });
    return d;
  }

  List<String> deaths() {
    synchronized (deaths) {
      return List.copyOf(deaths);
    }
  }

  @Override
  public void close() {
    Thread.setDefaultUncaughtExceptionHandler(previous);
  }
}
