/**
 * The application shell: it assembles the roles from the other modules and runs them in one
 * process ({@code SluiceApp}), with what every role shares there: the preflight checks, the topic
 * admin, the configuration watcher, the metrics, and the {@code produce} and {@code verify} tools.
 * It decides nothing about events itself.
 */
package io.sluice.app;
