/**
 * What a provider's answers teach: how a 429, a 5xx or a timeout is retried ({@code
 * FeedbackPolicy}, {@code Backoff}), the limits a provider announces in its headers, and the
 * limits learned from them ({@code LimitLearning}, the pure rule; {@code LimitLearner}, kept per
 * provider and shared through Redis by {@code RedisLearnedLimitStore}).
 */
package io.sluice.dispatcher.feedback;
