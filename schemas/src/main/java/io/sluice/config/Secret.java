package io.sluice.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A credential from the configuration: written as is, or referenced as {@code ${env:NAME}} (an
 * environment variable) or {@code ${file:PATH}} (a file, such as a Kubernetes secret mount).
 *
 * <p>{@link #toString} is {@link Secrets#MASK}, whatever the kind: a record that holds a secret
 * (a provider's configuration) can be logged, compared and shown on {@code /health} without
 * showing it. Only {@link #value} gives the text, and only the code that puts it on the wire
 * calls it. {@link #reference} is the safe way to name it in a message.
 *
 * <p>A file is read at start-up (a missing, unreadable, empty or larger than
 * {@link #MAX_FILE_BYTES} file stops start-up, naming the field) and again when {@link #value} is
 * asked for after {@link #RECHECK} since the last read: a rotated Kubernetes secret (whose
 * mount swaps a symbolic link) is in use within that time, with no restart. A read that fails
 * later keeps the last value: a file being replaced must not fail calls. But a file found
 * <em>missing</em> at two reads at least {@link #RECHECK} apart was deleted, not replaced (a
 * Kubernetes mount swaps its link atomically, and a tool writing anew leaves it missing for
 * moments): the secret is revoked, and {@link #value} throws {@link Unavailable} until the file
 * is back. An operator revokes a credential with {@code rm}, and the calls that would carry it
 * wait (issue 33; before, the deleted secret was sent for as long as the process ran). One
 * trailing line break is dropped ({@code echo token > file} writes one).
 */
public final class Secret {
  /** How often, at most, a file secret is read again. */
  public static final Duration RECHECK = Duration.ofSeconds(2);
  /** The largest secret file read; a bigger one is not a credential. */
  public static final int MAX_FILE_BYTES = 64 * 1024;

  private static final Pattern REFERENCE = Pattern.compile("\\$\\{(env|file):([^}]+)}");

  private final String reference;
  private final Path file;
  private final LongSupplier nanoClock;
  private volatile String value;
  private volatile long readAtNanos;
  /** When a read first found the file missing, in a run of such reads; 0 while it is there. */
  private volatile long missingSinceNanos;
  private volatile boolean revoked;

  /** A file secret whose file was deleted: it is not sent until the file is back. */
  public static final class Unavailable extends IllegalStateException {
    Unavailable(String message) {
      super(message);
    }
  }

  private Secret(String reference, String value, Path file, LongSupplier nanoClock) {
    this.reference = reference;
    this.value = value;
    this.file = file;
    this.nanoClock = nanoClock;
    this.readAtNanos = nanoClock.getAsLong();
  }

  /** A secret written in the configuration itself. */
  public static Secret literal(String value) {
    return new Secret("(literal)", Objects.requireNonNull(value), null, System::nanoTime);
  }

  /**
   * The secret {@code text} names: {@code ${env:NAME}} read from {@code env}, {@code ${file:PATH}}
   * read from the file, anything else the text itself.
   *
   * @throws IllegalArgumentException with a message naming the reference, never a value, when the
   *                                  variable is unset or empty, or the file cannot be read
   */
  public static Secret resolve(String text, Map<String, String> env) {
    return resolve(text, env, System::nanoTime);
  }

  /** {@link #resolve} with the clock that times a file's re-reads. */
  public static Secret resolve(String text, Map<String, String> env, LongSupplier nanoClock) {
    Matcher m = REFERENCE.matcher(text);
    if (!m.matches()) {
      if (text.contains("${")) {
        throw new IllegalArgumentException(
            "expected ${env:NAME}, ${file:PATH} or a literal secret without \"${\"");
      }
      return literal(text);
    }
    String name = m.group(2);
    if (m.group(1).equals("env")) {
      String value = env.get(name);
      if (value == null || value.isEmpty()) {
        throw new IllegalArgumentException("the environment variable " + name
            + " (from ${env:" + name + "}) is " + (value == null ? "not set" : "empty"));
      }
      return new Secret("${env:" + name + "}", value, null, nanoClock);
    }
    Path file = Path.of(name);
    return new Secret("${file:" + name + "}", read(file), file, nanoClock);
  }

  /**
   * A reference kept without reading it, for a command that never puts a provider's credential
   * on the wire ({@link ConfigLoader#loadForOperator}): {@link #value} refuses, naming the
   * reference, so a code path that did need it fails loudly instead of sending a placeholder.
   */
  static Secret unread(String reference) {
    return new Secret(reference, null, null, System::nanoTime);
  }

  /** Whether the secret was read ({@link #unread} ones were not). */
  public boolean isRead() {
    return value != null;
  }

  /** Whether {@code text} is a {@code ${env:NAME}} or {@code ${file:PATH}} reference. */
  public static boolean isReference(String text) {
    return REFERENCE.matcher(text).matches();
  }

  /** The secret's text; a file's is read again when {@link #RECHECK} has passed. */
  public String value() {
    if (value == null) {
      throw new IllegalStateException(reference + " was not read: the command that loaded this "
          + "configuration does not call providers");
    }
    if (file != null) {
      long now = nanoClock.getAsLong();
      if (now - readAtNanos >= RECHECK.toNanos()) {
        readAtNanos = now;
        try {
          value = read(file);
          missingSinceNanos = 0;
          revoked = false;
        } catch (Missing e) {
          if (missingSinceNanos == 0) {
            missingSinceNanos = now; // perhaps mid-replacement: the last value, this once
          } else if (now - missingSinceNanos >= RECHECK.toNanos()) {
            revoked = true;
          }
        } catch (IllegalArgumentException e) {
          // Keep the last value: a secret mount mid-swap must not fail calls.
          missingSinceNanos = 0;
        }
      }
      if (revoked) {
        throw new Unavailable(reference + " was deleted: the secret is revoked until the file is back");
      }
    }
    return value;
  }

  /** A read that found no file (the start-up check reports it as any unreadable file). */
  private static final class Missing extends IllegalArgumentException {
    Missing(String message) {
      super(message);
    }
  }

  /** Where the secret comes from, safe to show: {@code ${env:NAME}}, {@code ${file:PATH}} or (literal). */
  public String reference() {
    return reference;
  }

  private static String read(Path file) {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_FILE_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new Missing("the file " + file + " (from ${file:" + file + "}) does not exist");
    } catch (IOException e) {
      throw new IllegalArgumentException("the file " + file + " (from ${file:" + file
          + "}) cannot be read: " + e.getClass().getSimpleName());
    }
    if (bytes.length > MAX_FILE_BYTES) {
      throw new IllegalArgumentException("the file " + file + " is larger than "
          + MAX_FILE_BYTES + " bytes, too large for a secret");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (text.endsWith("\r\n")) {
      text = text.substring(0, text.length() - 2);
    } else if (text.endsWith("\n")) {
      text = text.substring(0, text.length() - 1);
    }
    if (text.isEmpty()) {
      throw new IllegalArgumentException("the file " + file + " (from ${file:" + file
          + "}) is empty");
    }
    return text;
  }

  /**
   * Two secrets are equal when they come from the same place and, unless that place is a file,
   * hold the same text. A file's content is not compared: it changes under a running process,
   * which reads it again by itself, and a reload must not call that a change of setting.
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof Secret s && reference.equals(s.reference)
        && (file != null || value.equals(s.value));
  }

  @Override
  public int hashCode() {
    return reference.hashCode();
  }

  @Override
  public String toString() {
    return Secrets.MASK;
  }
}
