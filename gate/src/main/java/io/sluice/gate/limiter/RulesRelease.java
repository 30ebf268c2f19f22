package io.sluice.gate.limiter;

/**
 * A lease across rules given back ({@code quota_rules.lua}): each of its buckets that still holds
 * exactly this lease takes back its {@code units - used} unused units and lifts its cap.
 */
public record RulesRelease(String id, long deadlineMicros, int units, int used) {
  public String encode() {
    return id + " " + deadlineMicros + " " + units + " " + used;
  }
}
