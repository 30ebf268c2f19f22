/**
 * The chaos run: Sluice's roles as separate processes against a broker and redis-server
 * processes, SIGKILLed and restarted under load while the providers misbehave, judged from the
 * topics and the providers' own record ({@link io.sluice.lab.chaos.ChaosRun}, docs/lab.md).
 */
package io.sluice.lab.chaos;
