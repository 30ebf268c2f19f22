/**
 * The configuration: the YAML file bound to immutable records ({@code SluiceConfig} and its
 * parts), checked against {@code config.schema.json} and by {@code ConfigChecks} (errors name
 * their YAML path), with defaults and reload scopes. Every role reads it; nothing here does I/O
 * beyond reading the file.
 */
package io.sluice.config;
