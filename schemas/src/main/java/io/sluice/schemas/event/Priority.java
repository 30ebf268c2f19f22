package io.sluice.schemas.event;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/**
 * An event's priority class ({@code priority} in the work event): which of its tenant's own
 * events toward its provider goes first where they wait together. It orders a tenant's events
 * among themselves only: the tenant's quota, its tier's weight and its fair share are the same
 * whatever its events' classes (docs/dispatcher.md, "Priority classes").
 *
 * <p>Declared from the highest class to the lowest; {@link #rank()} is 0 for the highest.
 */
public enum Priority {
  HIGH("high"),
  NORMAL("normal"),
  LOW("low");

  /** The class of an event that names none. */
  public static final Priority DEFAULT = NORMAL;

  private final String wire;

  Priority(String wire) {
    this.wire = wire;
  }

  /** The class's name in the event, lower case. */
  @JsonValue
  public String wire() {
    return wire;
  }

  /** 0 for the highest class, one more for each class below. */
  public int rank() {
    return ordinal();
  }

  /** The class named {@code wire} exactly (lower case), or empty. */
  public static Optional<Priority> of(String wire) {
    for (Priority p : values()) {
      if (p.wire.equals(wire)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The names, highest first, as a detail lists them: {@code high, normal, low}. */
  public static String names() {
    StringBuilder b = new StringBuilder();
    for (Priority p : values()) {
      b.append(b.isEmpty() ? "" : ", ").append(p.wire);
    }
    return b.toString();
  }
}
