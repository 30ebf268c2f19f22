package io.sluice.lab.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A flight recording of one measured window (JFR's {@code profile} settings, in this JVM), and
 * what its CPU samples say: the share of samples by thread family ({@link CpuSnapshot#family}),
 * the top frames where the samples were taken (self), and, for samples with a Sluice frame on the
 * stack, the innermost Sluice method (where Sluice's own code spent, or called out from).
 */
final class DispatchProfile implements AutoCloseable {
  private final Recording recording;
  private final Path file;

  private DispatchProfile(Recording recording, Path file) {
    this.recording = recording;
    this.file = file;
  }

  /** Starts recording into {@code file} (written when {@link #close}d). */
  static DispatchProfile start(Path file) throws IOException, ParseException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Recording r = new Recording(Configuration.getConfiguration("profile"));
    r.setToDisk(true);
    r.setDestination(file);
    r.start();
    return new DispatchProfile(r, file);
  }

  Path file() {
    return file;
  }

  @Override
  public void close() {
    recording.stop();
    recording.close();
  }

  /** What the samples of a recording say, each list largest first, shares of all samples. */
  record Summary(long samples, Map<String, Double> byFamily, Map<String, Double> topSelf,
      Map<String, Double> topSluice) {
    String describe(int top) {
      return String.format(Locale.ROOT, "%,d samples; by thread: %s; top frames (self): %s; "
          + "innermost Sluice frame: %s", samples, shares(byFamily, top), shares(topSelf, top),
          shares(topSluice, top));
    }

    private static String shares(Map<String, Double> m, int top) {
      return m.entrySet().stream().limit(top)
          .map(e -> String.format(Locale.ROOT, "`%s` %.1f%%", e.getKey(), 100 * e.getValue()))
          .collect(Collectors.joining(", "));
    }
  }

  /** Reads {@code file}'s {@code jdk.ExecutionSample} events. */
  static Summary summarize(Path file) throws IOException {
    Map<String, Long> family = new HashMap<>();
    Map<String, Long> self = new HashMap<>();
    Map<String, Long> sluice = new HashMap<>();
    long samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedStackTrace stack = e.getStackTrace();
      if (stack == null || stack.getFrames().isEmpty()) {
        continue;
      }
      samples++;
      String thread = e.getThread("sampledThread") == null ? "?"
          : e.getThread("sampledThread").getJavaName();
      family.merge(CpuSnapshot.family(thread == null ? "?" : thread), 1L, Long::sum);
      List<RecordedFrame> frames = stack.getFrames();
      self.merge(name(frames.get(0)), 1L, Long::sum);
      for (RecordedFrame f : frames) {
        if (f.getMethod().getType().getName().startsWith("io.sluice.")) {
          sluice.merge(name(f), 1L, Long::sum);
          break;
        }
      }
    }
    return new Summary(samples, shares(family, samples), shares(self, samples),
        shares(sluice, samples));
  }

  private static String name(RecordedFrame f) {
    String type = f.getMethod().getType().getName();
    return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName();
  }

  private static Map<String, Double> shares(Map<String, Long> counts, long total) {
    Map<String, Double> out = new LinkedHashMap<>();
    counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> out.put(e.getKey(), total == 0 ? 0 : e.getValue() / (double) total));
    return out;
  }
}
