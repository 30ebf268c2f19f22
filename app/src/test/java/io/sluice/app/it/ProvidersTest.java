package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.embedded.mock.MockProvider;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The duplicate-call oracle the crash tests count with ({@link Providers#callsAfterAFinalAnswer}). */
class ProvidersTest {
  private static MockProvider.Call call(String key, int status) {
    return new MockProvider.Call(0, 0, "/hooks", key, Map.of(), new byte[0], status);
  }

  @Test
  void shouldCountEveryCallAfterAFinalAnswerWhateverItIsAnswered() {
    List<MockProvider.Call> calls = List.of(
        call("e1", 200), call("e1", 429), call("e1", 200), // delivered, then called twice more
        call("e2", 200), call("e2", 400),                  // delivered, then called and refused
        call("e3", 400), call("e3", 500));                 // dead-lettered, then called again
    // A count of second 2xx answers (SigkillTakeoverIT before issue 34) sees e1 once, and
    // neither e2 nor e3.
    assertEquals(Map.of("e1", 2, "e2", 1, "e3", 1), Providers.callsAfterAFinalAnswer(calls));
  }

  @Test
  void shouldNotCountRetriesAfterAnAnswerThatAsksForOne() {
    List<MockProvider.Call> calls = List.of(
        call("e1", 429), call("e1", 503), call("e1", 408), call("e1", 200));
    assertEquals(Map.of(), Providers.callsAfterAFinalAnswer(calls));
  }
}
