package io.sluice.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One rate-limited provider.
 *
 * @param url            base URL; events may add a relative path, never a host
 * @param rate           the leak rate across all dispatcher instances (the RATE limit's)
 * @param maxInFlight    calls in flight at most, per dispatcher instance
 * @param timeout        per call
 * @param onRedisDown    policy while Redis does not answer
 * @param shadow         compute and count every decision, hold nothing back
 * @param forwardHeaders event attributes allowed through as request headers (case-insensitive)
 * @param maxCost        the largest cost an event may carry
 * @param quotas         each tier's bucket toward this provider, by tier name
 * @param limits         every limit of the provider, enforced together; exactly one RATE limit,
 *                       equal to {@code rate} ({@code rate: R} alone means {@code limits: [{rate: R}]})
 * @param answers        what the provider's answers may do: learning on or off, the floor under
 *                       learned limits, the longest Retry-After honoured (null: the defaults)
 * @param request        how calls are made (method, content type, headers, credential, signing)
 *                       and what of an answer is kept; its secrets show as {@code ***}
 * @param endpoints      its one {@code url}, or each tenant's own endpoint ({@code endpoints:
 *                       perTenant}) with the guard and automatic disabling that go with them
 * @param intake         how far ahead an event may ask to be called ({@code maxDelay}) and how long
 *                       its id is remembered against repeats ({@code dedupWindow})
 */
public record ProviderConfig(
    URI url,
    Rate rate,
    int maxInFlight,
    Duration timeout,
    RedisDownPolicy onRedisDown,
    boolean shadow,
    List<String> forwardHeaders,
    int maxCost,
    Map<String, Quota> quotas,
    List<ProviderLimit> limits,
    AnswerBounds answers,
    ProviderRequest request,
    ProviderEndpoints endpoints,
    ProviderIntake intake,
    BatchRule batch) {
  public ProviderConfig {
    batch = batch == null ? BatchRule.OFF : batch;
    intake = intake == null ? ProviderIntake.DEFAULT : intake;
    endpoints = endpoints == null ? ProviderEndpoints.SINGLE : endpoints;
    answers = answers == null ? AnswerBounds.DEFAULT : answers;
    request = request == null ? ProviderRequest.DEFAULT : request;
    forwardHeaders = forwardHeaders == null ? List.of() : List.copyOf(forwardHeaders);
    quotas = quotas == null ? Map.of() : Map.copyOf(quotas);
    limits = limits == null || limits.isEmpty()
        ? List.of(ProviderLimit.rate(rate.perSecond())) : List.copyOf(limits);
  }

  /** A provider taking one event per call. */
  public ProviderConfig(URI url, Rate rate, int maxInFlight, Duration timeout,
      RedisDownPolicy onRedisDown, boolean shadow, List<String> forwardHeaders, int maxCost,
      Map<String, Quota> quotas, List<ProviderLimit> limits, AnswerBounds answers,
      ProviderRequest request, ProviderEndpoints endpoints, ProviderIntake intake) {
    this(url, rate, maxInFlight, timeout, onRedisDown, shadow, forwardHeaders, maxCost, quotas,
        limits, answers, request, endpoints, intake, BatchRule.OFF);
  }

  /** Whether each tenant's calls go to the tenant's own endpoint ({@code endpoints: perTenant}). */
  public boolean perTenant() {
    return endpoints.perTenant();
  }

  /** This provider calling {@code endpoint} with {@code limits}: one endpoint's destination. */
  public ProviderConfig toward(URI endpoint, List<ProviderLimit> endpointLimits) {
    double rate = endpointLimits.stream().filter(l -> l.kind() == ProviderLimit.Kind.RATE)
        .mapToDouble(ProviderLimit::amount).findFirst().orElse(this.rate.perSecond());
    return new ProviderConfig(endpoint, new Rate(rate), maxInFlight, timeout, onRedisDown, shadow,
        forwardHeaders, maxCost, quotas, endpointLimits, answers, request, endpoints, intake,
        batch);
  }

  /**
   * The largest cost an event toward this provider can ever be sent with: maxCost, or less if a
   * cost window is smaller (an event costing more could never fit in it).
   */
  public long largestSendableCost() {
    return Math.min(maxCost, smallestCostWindow());
  }

  /**
   * The amount of the smallest cost window ({@link Long#MAX_VALUE} when no limit counts cost):
   * an event costing more could never be sent, whatever maxCost admitted it.
   */
  public long smallestCostWindow() {
    long smallest = Long.MAX_VALUE;
    for (ProviderLimit limit : limits) {
      if (limit.kind() == ProviderLimit.Kind.COST) {
        smallest = Math.min(smallest, (long) limit.amount());
      }
    }
    return smallest;
  }
}
