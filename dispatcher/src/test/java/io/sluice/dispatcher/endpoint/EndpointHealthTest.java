package io.sluice.dispatcher.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.endpoint.EndpointHealth.Change;
import io.sluice.dispatcher.endpoint.EndpointHealth.Health;
import io.sluice.dispatcher.endpoint.EndpointHealth.State;
import io.sluice.dispatcher.provider.ProviderResult;
import org.junit.jupiter.api.Test;

/**
 * An endpoint failing for disableAfter (10 s here) is disabled, probed once after probeAfter (3 s),
 * and enabled again by an answer. Times are milliseconds on one clock.
 */
class EndpointHealthTest {
  private static final ProviderResult OK = new ProviderResult.Answered(200, null);
  private static final ProviderResult E500 = new ProviderResult.Answered(500, null);
  private static final ProviderResult TIMEOUT = new ProviderResult.TimedOut("5s");

  private final EndpointHealth health = new EndpointHealth(10_000, 3_000);

  @Test
  void shouldDisableAnEndpointFailingForDisableAfterAndProbeItOnceAfterTheCoolOff() {
    assertEquals(Change.NONE, health.take(E500, 0));        // the streak begins
    assertEquals(Change.NONE, health.take(TIMEOUT, 5_000));
    assertEquals(Change.NONE, health.take(E500, 9_999));    // 3 failures, not yet 10 s
    assertTrue(health.mayCall(9_999));
    assertEquals(Change.DISABLED, health.take(E500, 10_000));

    assertFalse(health.mayCall(10_001), "disabled: no call");
    assertFalse(health.mayCall(12_999), "the cool-off is 3 s");
    assertTrue(health.mayCall(13_000), "the probe");
    assertEquals(State.PROBING, health.state());
    assertFalse(health.mayCall(13_000), "one probe only");

    assertEquals(Change.ENABLED, health.take(OK, 13_200));
    assertEquals(State.ENABLED, health.state());
    assertTrue(health.mayCall(13_201));
  }

  @Test
  void shouldHoldNoTimeoutAgainstTheEndpointWhileTheDispatcherRanLateDuringTheCall() {
    // The dispatcher was late while these calls were in flight: their answers may have waited
    // for a CPU here. They neither grow the streak nor end it; its 5xx and an on-time timeout do.
    assertEquals(Change.NONE, health.take(E500, 0));
    for (long t = 1_000; t <= 20_000; t += 1_000) {
      assertEquals(Change.NONE, health.take(TIMEOUT, t, true), "timeout at " + t);
    }
    assertEquals(State.ENABLED, health.state());
    assertEquals(Change.NONE, health.take(E500, 20_500, true), "a 5xx is the endpoint's answer");
    assertEquals(Change.DISABLED, health.take(TIMEOUT, 21_000, false),
        "three failures of its own over 21 s of failing");
  }

  @Test
  void shouldProbeAgainAtOnceWhenTheProbeTimedOutWhileTheDispatcherRanLate() {
    disable();
    assertTrue(health.mayCall(13_000));
    assertEquals(Change.NONE, health.take(TIMEOUT, 15_000, true));
    assertTrue(health.mayCall(15_000), "no evidence either way: probed again");
  }

  @Test
  void shouldDisableAgainForAnotherCoolOffWhenTheProbeFails() {
    disable();

    assertTrue(health.mayCall(13_000));
    assertEquals(Change.PROBE_FAILED, health.take(TIMEOUT, 18_000)); // the probe timed out at 18 s

    assertFalse(health.mayCall(20_999));
    assertTrue(health.mayCall(21_000), "the next probe, 3 s after the failed one ended");
  }

  @Test
  void shouldEndAFailingStreakWithAnyAnswerThatIsNotA5xx() {
    health.take(E500, 0);
    health.take(E500, 1_000);
    assertEquals(Change.NONE, health.take(new ProviderResult.Answered(429, "1"), 2_000));
    health.take(E500, 9_000);
    health.take(E500, 12_000);

    assertEquals(Change.NONE, health.take(E500, 15_000), "the streak began at 9 s, not at 0");
    assertEquals(Change.DISABLED, health.take(E500, 19_000));
  }

  @Test
  void shouldNeedThreeFailuresSoOneLateFailureNeverDisables() {
    health.take(E500, 0);

    assertEquals(Change.NONE, health.take(E500, 60_000), "two failures a minute apart");
    assertEquals(Change.DISABLED, health.take(E500, 60_001));
  }

  @Test
  void shouldLetACallFromBeforeTheDisablingEnableItButNotProlongIt() {
    disable();

    assertEquals(Change.NONE, health.take(E500, 12_000), "known already: the probe stays at 13 s");
    assertTrue(health.mayCall(13_000));
    health.take(E500, 13_100);
    disableAgainAndAnswerLate();
  }

  private void disableAgainAndAnswerLate() {
    assertEquals(State.DISABLED, health.state());
    assertEquals(Change.ENABLED, health.take(OK, 13_500), "a late answer shows it alive");
    assertEquals(State.ENABLED, health.state());
  }

  @Test
  void shouldGiveTheProbeBackWhenItsCallNeverLeft() {
    disable();
    assertTrue(health.mayCall(13_000));

    health.take(new ProviderResult.CredentialUnavailable("token endpoint down"), 13_001);

    assertEquals(State.DISABLED, health.state());
    assertTrue(health.mayCall(13_002), "probed again at once");
  }

  @Test
  void shouldReadEachResultForWhatItSaysOfTheEndpoint() {
    assertEquals(Health.FAILING, EndpointHealth.of(E500));
    assertEquals(Health.FAILING, EndpointHealth.of(new ProviderResult.Answered(503, "5")));
    assertEquals(Health.FAILING, EndpointHealth.of(TIMEOUT));
    assertEquals(Health.FAILING, EndpointHealth.of(new ProviderResult.ConnectFailed("refused")));
    assertEquals(Health.ALIVE, EndpointHealth.of(OK));
    assertEquals(Health.ALIVE, EndpointHealth.of(new ProviderResult.Answered(404, null)));
    assertEquals(Health.ALIVE, EndpointHealth.of(new ProviderResult.Answered(429, "1")));
    assertEquals(Health.ALIVE, EndpointHealth.of(new ProviderResult.Unauthorized(true, "401")));
    assertEquals(Health.UNKNOWN, EndpointHealth.of(new ProviderResult.Unsendable("bad path")));
  }

  private void disable() {
    health.take(E500, 0);
    health.take(E500, 5_000);
    assertEquals(Change.DISABLED, health.take(E500, 10_000));
  }
}
