package io.sluice.gate;

import io.sluice.config.Durations;
import io.sluice.schemas.event.Priority;
import java.time.Duration;

/** The names of the gate topology's nodes, so tests, logs and metrics agree on them. */
public final class GateNodes {
  public static final String SOURCE = "inbound-source";
  /** Sluice's own returns to the gate (topic {@code <prefix>regate}). */
  public static final String REGATE_SOURCE = "regate-source";
  /** Removes every producer-written {@code sluice-*} header from inbound records. */
  public static final String STRIP_SLUICE_HEADERS = "strip-sluice-headers";
  public static final String VALIDATE = "validate";
  public static final String RESOLVE_TIER = "resolve-tier";
  /**
   * The gate's one processor node ({@link GateProcessor}); {@link #STRIP_SLUICE_HEADERS},
   * {@link #VALIDATE} and {@link #RESOLVE_TIER} name its steps, which were nodes of their own.
   */
  public static final String LIMIT = "limit";
  public static final String READY_SINK = "ready-sink";
  /** Admitted events of the {@code high} class ({@code <prefix>ready.high}, {@code ReadyTopic}). */
  public static final String READY_HIGH_SINK = "ready-high-sink";
  public static final String DLQ_SINK = "dlq-sink";
  /** Only with {@code gate.receipts}. */
  public static final String RECEIPTS_SINK = "receipts-sink";
  /** The outcomes the gate writes: {@code duplicate} ({@link DedupStep}). */
  public static final String OUTCOMES_SINK = "outcomes-sink";

  private GateNodes() {}

  /** The sink of an admitted event of class {@code priority}: its ready topic's ({@code ReadyTopic}). */
  public static String readySink(Priority priority) {
    return priority == Priority.HIGH ? READY_HIGH_SINK : READY_SINK;
  }

  public static String delaySink(Duration step) {
    return "delay-sink-" + Durations.format(step);
  }
}
