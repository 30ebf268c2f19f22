package io.sluice.dispatcher.feedback;

import java.util.OptionalLong;

/**
 * What the provider says is left: {@code remaining} units until {@code resetMillis} from the
 * answer ({@code RateLimit: "name";r=50;t=30}, or {@code X-RateLimit-Remaining} with its reset).
 *
 * @param resetMillis from the answer until the quota is whole again; empty if not given
 * @param limit       the quota, when the same family states it ({@code X-RateLimit-Limit})
 */
record AnnouncedRemaining(String name, LimitUnit unit, long remaining,
    OptionalLong resetMillis, OptionalLong limit) {}
