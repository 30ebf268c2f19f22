package io.sluice.schemas.config;

/** @param port where /metrics and /health are served */
public record HttpConfig(int port) {}
