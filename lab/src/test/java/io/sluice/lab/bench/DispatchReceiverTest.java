package io.sluice.lab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The receiver both sides of the {@code dispatch} scenario call. */
class DispatchReceiverTest {

  @Test
  void answersEveryPost200WithNoBodyAndCountsItsPath() throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    try (DispatchReceiver receiver = DispatchReceiver.start(2)) {
      for (String path : new String[] {"/d/1", "/d/2", "/d/1"}) {
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(receiver.url(path))
            .POST(HttpRequest.BodyPublishers.ofString(DispatchScenario.PAYLOAD)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode());
        assertEquals("", answer.body());
      }
      assertEquals(3, receiver.calls());
      Map<String, long[]> arrivals = receiver.arrivals();
      assertEquals(2, arrivals.get("/d/1").length);
      assertEquals(1, arrivals.get("/d/2").length);
      receiver.reset();
      assertEquals(0, receiver.calls());
      assertEquals(Map.of(), receiver.arrivals());
    }
  }
}
