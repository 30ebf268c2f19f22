package io.sluice.app.simulate;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.schemas.validation.EventValidator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * A file of recorded events, one JSON work event a line, each with its arrival time in a
 * top-level {@code ts} field (epoch milliseconds, or an RFC 3339 instant), which the event
 * contract ignores as it does any unknown field. Streamed, never held whole, and bounded: the
 * file's size, its lines, a line's length, and the span of time read.
 *
 * <p>A line that cannot be placed in time (no {@code ts}, or not a time) stops the read with its
 * line number: the input is the operator's own, and a simulation that silently dropped lines
 * would answer for other traffic. A line that is not a valid event is not an error: it is read
 * as it is and dead-lettered as the gate would.
 */
public final class RecordedEvents implements Arrivals {
  /** How much is read at most. */
  public record Bounds(long maxBytes, long maxLines, int maxLineBytes, Duration maxSpan) {}

  /** One line: when it arrived, its bytes. */
  public record Line(long number, long atMillis, byte[] value) {}

  /** The file is not what the simulation takes; the message names the line. */
  public static final class BadInput extends RuntimeException {
    BadInput(String message) {
      super(message);
    }
  }

  private static final JsonFactory JSON = new JsonFactory();

  private final EventValidator validator = new EventValidator();

  private final InputStream in;
  private final Bounds bounds;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
  private final byte[] buffer = new byte[1 << 16];
  private int pos;
  private int limit;
  private long number;
  private long first = Long.MIN_VALUE;
  private boolean bounded;

  private RecordedEvents(InputStream in, Bounds bounds) {
    this.in = in;
    this.bounds = bounds;
  }

  public static RecordedEvents open(Path file, Bounds bounds) {
    try {
      long size = Files.size(file);
      if (size > bounds.maxBytes()) {
        throw new BadInput(file + " is " + size + " bytes, more than --max-bytes " + bounds.maxBytes());
      }
      return new RecordedEvents(Files.newInputStream(file), bounds);
    } catch (IOException e) {
      throw new BadInput("cannot read " + file + ": " + e.getMessage());
    }
  }

  /** For tests and standard input. */
  static RecordedEvents of(InputStream in, Bounds bounds) {
    return new RecordedEvents(in, bounds);
  }

  /** The next line with an event, or null at the end of the file or of a bound. */
  public Line next() {
    try {
      while (true) {
        if (number >= bounds.maxLines()) {
          bounded = pos < limit || in.read() >= 0;
          return null;
        }
        if (!readLine()) {
          return null;
        }
        number++;
        byte[] value = line.toByteArray();
        if (blank(value)) {
          continue;
        }
        long at = timestamp(value, number);
        if (first == Long.MIN_VALUE) {
          first = at;
        } else if (at - first > bounds.maxSpan().toMillis()) {
          bounded = true;
          return null;
        }
        return new Line(number, at, value);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Each line read by the event contract once ({@link EventValidator}, no tree for a valid one). */
  @Override
  public boolean next(Sink sink) {
    Line l = next();
    if (l == null) {
      return false;
    }
    sink.arrive(l.atMillis(), validator.validateLeavingPayload(l.value()), l.value().length);
    return true;
  }

  /** Whether a bound (lines, span) stopped the read before the end of the file. */
  @Override
  public boolean bounded() {
    return bounded;
  }

  @Override
  public long linesRead() {
    return number;
  }

  /** Reads the next line into {@code line}, through a buffer of its own (a read per byte is slow). */
  private boolean readLine() throws IOException {
    line.reset();
    boolean any = false;
    while (true) {
      if (pos == limit) {
        limit = in.read(buffer, 0, buffer.length);
        pos = 0;
        if (limit <= 0) {
          limit = 0;
          return any;
        }
      }
      any = true;
      int start = pos;
      while (pos < limit && buffer[pos] != '\n') {
        pos++;
      }
      if (line.size() + (pos - start) > bounds.maxLineBytes()) {
        throw new BadInput("line " + (number + 1) + " is longer than " + bounds.maxLineBytes() + " bytes");
      }
      line.write(buffer, start, pos - start);
      if (pos < limit) {
        pos++; // the newline
        return true;
      }
    }
  }

  private static boolean blank(byte[] value) {
    for (byte b : value) {
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  /** The top-level {@code ts} of a line, in epoch milliseconds. */
  static long timestamp(byte[] value, long number) {
    long first = leadingTs(value);
    if (first >= 0) {
      return first;
    }
    try (JsonParser p = JSON.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new BadInput("line " + number + " is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        if ("ts".equals(name)) {
          if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
          }
          if (t == JsonToken.VALUE_STRING) {
            return Instant.parse(p.getText()).toEpochMilli();
          }
          break;
        }
        p.skipChildren();
      }
    } catch (IOException | DateTimeParseException e) {
      throw new BadInput("line " + number + ": field 'ts' is not readable: " + firstWords(e.getMessage()));
    }
    throw new BadInput("line " + number + ": field 'ts' (epoch milliseconds or an RFC 3339 instant) is missing");
  }

  /**
   * The usual line's {@code ts} without a parser: the object's first member, {@code "ts"}, a plain
   * run of 1 to 18 digits (as {@code tools/outside/simulate.sh} and kcat-made files write it)
   * followed by a comma or the object's end. The parser reads the rest and every other form, with
   * the same answer (the first top-level {@code ts}); -1 when this is not that form.
   */
  private static long leadingTs(byte[] v) {
    int i = skipSpace(v, 0);
    if (i >= v.length || v[i] != '{') {
      return -1;
    }
    i = skipSpace(v, i + 1);
    if (i + 4 > v.length || v[i] != '"' || v[i + 1] != 't' || v[i + 2] != 's' || v[i + 3] != '"') {
      return -1;
    }
    i = skipSpace(v, i + 4);
    if (i >= v.length || v[i] != ':') {
      return -1;
    }
    i = skipSpace(v, i + 1);
    long n = 0;
    int digits = 0;
    while (i < v.length && v[i] >= '0' && v[i] <= '9' && digits < 19) {
      n = n * 10 + (v[i] - '0');
      digits++;
      i++;
    }
    if (digits == 0 || digits > 18 || (digits > 1 && v[i - digits] == '0')) {
      return -1; // none, too long for certain, or a leading zero (not JSON): the parser says why
    }
    i = skipSpace(v, i);
    return i < v.length && (v[i] == ',' || v[i] == '}') ? n : -1;
  }

  private static int skipSpace(byte[] v, int i) {
    while (i < v.length && (v[i] == ' ' || v[i] == '\t' || v[i] == '\r' || v[i] == '\n')) {
      i++;
    }
    return i;
  }

  private static String firstWords(String message) {
    String m = message == null ? "" : message.split("\n", 2)[0];
    return m.length() > 120 ? m.substring(0, 120) + "..." : m;
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
