package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.feedback.LearnedLimit;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.schemas.event.Reason;
import java.util.Collection;

/**
 * What the lanes of tenants' endpoints report, under their provider's name: a lane is named
 * {@code provider/tenant} (its leak's and learned limits' key), and metrics carry the provider
 * only, so their series grow with providers, not with endpoints (tenant ids are kept out of
 * metrics, as everywhere).
 */
final class EndpointListener implements DispatchListener {
  private final DispatchListener to;

  EndpointListener(DispatchListener to) {
    this.to = to;
  }

  /** The provider of a lane name ({@code provider/tenant}); a provider's own lane is its name. */
  static String provider(String lane) {
    return LaneId.providerOf(lane);
  }

  @Override
  public void callStarted(String lane, String tier, long slotMicros, long lateNanos) {
    to.callStarted(provider(lane), tier, slotMicros, lateNanos);
  }

  @Override
  public void callEnded(String lane, String tier, ProviderResult result, long latencyNanos) {
    to.callEnded(provider(lane), tier, result, latencyNanos);
  }

  @Override
  public void delivered(String lane, String tier) {
    to.delivered(provider(lane), tier);
  }

  @Override
  public void deferred(String lane, String tier, Reason reason) {
    to.deferred(provider(lane), tier, reason);
  }

  @Override
  public void dead(String lane, String tier, Reason reason) {
    to.dead(lane == null ? null : provider(lane), tier, reason);
  }

  @Override
  public void throttled(String lane, long retryAfterMillis) {
    to.throttled(provider(lane), retryAfterMillis);
  }

  @Override
  public void leakUnavailable(String lane, Throwable cause) {
    to.leakUnavailable(provider(lane), cause);
  }

  @Override
  public void slotWasted(String lane, String reason) {
    to.slotWasted(provider(lane), reason);
  }

  @Override
  public void endpointDisabled(String lane) {
    to.endpointDisabled(provider(lane));
  }

  @Override
  public void endpointEnabled(String lane) {
    to.endpointEnabled(provider(lane));
  }

  @Override
  public void malformedHeader(String lane, String header) {
    to.malformedHeader(provider(lane), header);
  }

  @Override
  public void learned(String lane, Collection<LearnedLimit> limits) {
    to.learned(provider(lane), limits);
  }

  @Override
  public void held(String lane, long holdMillis) {
    to.held(provider(lane), holdMillis);
  }

  @Override
  public void bounded(String lane, LimitLearner.Bound bound) {
    to.bounded(provider(lane), bound);
  }
}
