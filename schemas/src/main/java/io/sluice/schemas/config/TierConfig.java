package io.sluice.schemas.config;

/** @param weight the tier's share of contended provider capacity (positive) */
public record TierConfig(double weight) {}
