import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The control for attacks.sh's DNS rebinding: the guard Sluice had before issue 33, check then
 * connect by name, run against the same flipping hosts file. It resolves the name, refuses it if
 * any address is internal, and otherwise lets a fresh JDK client connect by name (which resolves
 * again), GAP_MS after the check (0: at once; a dispatcher's check and its connect are apart by
 * as long as the call waits in its lane). Prints {gapMs, tries, refusedByCheck, passedCheck,
 * reachedInternal, failed}: every reachedInternal is a call that passed the check and landed on
 * the loopback listener.
 *
 * <pre>java -Djdk.net.hosts.file=HOSTS -Dsun.net.inetaddr.ttl=0 NaiveCheckThenConnect.java NAME PORT TRIES GAP_MS</pre>
 */
public class NaiveCheckThenConnect {
  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    int tries = Integer.parseInt(args[2]);
    long gapMs = Long.parseLong(args[3]);
    int refused = 0;
    int passed = 0;
    int reached = 0;
    int failed = 0;
    for (int i = 0; i < tries; i++) {
      boolean internal = false;
      for (InetAddress a : InetAddress.getAllByName(host)) {
        internal |= a.isLoopbackAddress() || a.isSiteLocalAddress() || a.isLinkLocalAddress()
            || a.isAnyLocalAddress();
      }
      if (internal) {
        refused++;
        continue;
      }
      passed++;
      Thread.sleep(gapMs);
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
      try {
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
            URI.create("http://" + host + ":" + port + "/in")).timeout(Duration.ofSeconds(2))
            .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        reached += answer.body().contains("internal") ? 1 : 0;
      } catch (IOException e) {
        failed++;
      }
    }
    System.out.printf("{\"gapMs\":%d,\"tries\":%d,\"refusedByCheck\":%d,\"passedCheck\":%d,"
        + "\"reachedInternal\":%d,\"failed\":%d}%n", gapMs, tries, refused, passed, reached, failed);
  }
}
