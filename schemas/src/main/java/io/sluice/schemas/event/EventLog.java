package io.sluice.schemas.event;

import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;

/**
 * One log line per event settled: delivered, retried (a provider's 429 or 5xx, a timeout, an
 * overflow) or dead-lettered (by the dispatcher or the gate), on the logger {@value #LOGGER}, with
 * the event's tenant, provider and id, the outcome, the reason and the provider's status as MDC
 * fields (JSON fields in the JSON layout). A provider's refusal (4xx, 429) is the retried or
 * dead-lettered line with its {@code status}.
 *
 * <p>Outside input is hostile: tenant ids, event ids and provider names come from records anyone
 * with produce rights wrote, so each field is cut to {@value #MAX_FIELD} characters and loses its
 * control characters (no forged lines). Never logged: payloads, headers, the provider's answer
 * body, the dead letter's detail (it may quote that body).
 *
 * <p>The level the lines are written at is the config's {@code logging.events} (INFO by
 * default, DEBUG to have them only when the logger is turned up, OFF for none), set once for the
 * process by the application ({@link #writeAt}); the logger's own level, changeable at runtime
 * through {@code PUT /admin/loggers/sluice.events}, decides whether they show.
 */
public final class EventLog {
  public static final String LOGGER = "sluice.events";
  /** The longest a field is kept, in characters. */
  public static final int MAX_FIELD = 128;
  /** The MDC keys of an event line. */
  public static final String TENANT = "tenant";
  public static final String PROVIDER = "provider";
  public static final String EVENT_ID = "eventId";
  public static final String OUTCOME = "outcome";
  public static final String REASON = "reason";
  public static final String STATUS = "status";
  public static final String ATTEMPTS = "attempts";

  private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
  /** The level event lines are written at; null: not written. */
  private static volatile Level level = Level.INFO;

  private EventLog() {}

  /** Sets the level event lines are written at: a level name, or OFF for none. */
  public static void writeAt(String name) {
    level = "OFF".equalsIgnoreCase(name) ? null : Level.valueOf(name.toUpperCase(Locale.ROOT));
  }

  /** The provider took the event with {@code status}, at the {@code attempts}-th call. */
  public static void delivered(String tenant, String provider, String eventId, int status,
      int attempts) {
    write(tenant, provider, eventId, "delivered", null, status, attempts,
        "delivered (status " + status + ")");
  }

  /**
   * The event goes round the ladder, back in about {@code waitMillis}.
   *
   * @param status the provider's answer that refused it, or null (no answer: a timeout, an
   *               overflow, a learned limit)
   */
  public static void retried(String tenant, String provider, String eventId, Reason reason,
      Integer status, long waitMillis, int attempts) {
    write(tenant, provider, eventId, "retried", reason, status, attempts,
        (status == null ? "" : "refused with " + status + "; ") + "retried in about "
            + waitMillis + " ms (" + reason.code() + ")");
  }

  /**
   * The event went to the dead-letter topic.
   *
   * @param where  who dead-lettered it: {@code gate} or {@code dispatcher}
   * @param status the provider's answer that refused it, or null
   */
  public static void deadLettered(String where, String tenant, String provider, String eventId,
      Reason reason, Integer status, int attempts) {
    write(tenant, provider, eventId, "dead_lettered", reason, status, attempts,
        (status == null ? "" : "refused with " + status + "; ") + "dead-lettered by " + where
            + " (" + reason.code() + ")");
  }

  private static void write(String tenant, String provider, String eventId, String outcome,
      Reason reason, Integer status, int attempts, String message) {
    Level at = level;
    if (at == null || !LOG.isEnabledForLevel(at)) {
      return;
    }
    try {
      MDC.put(TENANT, clean(tenant));
      MDC.put(PROVIDER, clean(provider));
      MDC.put(EVENT_ID, clean(eventId));
      MDC.put(OUTCOME, outcome);
      if (reason != null) {
        MDC.put(REASON, reason.code());
      }
      if (status != null) {
        MDC.put(STATUS, Integer.toString(status));
      }
      MDC.put(ATTEMPTS, Integer.toString(attempts));
      LOG.atLevel(at).log(message);
    } finally {
      for (String key : new String[] {TENANT, PROVIDER, EVENT_ID, OUTCOME, REASON, STATUS,
          ATTEMPTS}) {
        MDC.remove(key);
      }
    }
  }

  /**
   * The text as it may be logged: at most {@value #MAX_FIELD} characters (a cut one ends in
   * "..."), control characters (line breaks, escapes) each replaced by '?', "-" for null.
   */
  public static String clean(String text) {
    if (text == null) {
      return "-";
    }
    int end = Math.min(text.length(), MAX_FIELD);
    StringBuilder out = new StringBuilder(end + 3);
    for (int i = 0; i < end; i++) {
      char c = text.charAt(i);
      out.append(Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
          || Character.isSurrogate(c) ? '?' : c);
    }
    return text.length() > MAX_FIELD ? out.append("...").toString() : out.toString();
  }
}
