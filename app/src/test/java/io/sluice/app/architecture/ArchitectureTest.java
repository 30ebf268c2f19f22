package io.sluice.app.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Rules about what may depend on what, read from the sources of every module (plain JUnit, no
 * bytecode tool: a rule is a regular expression over a file, and a broken rule names the file and
 * the line).
 *
 * <ol>
 *   <li><b>Pure means no I/O.</b> A class whose own javadoc says it is pure (the sentence "Pure",
 *       as in "Pure: time is passed in", or "pure arithmetic", "pure-Java mirror") uses no Kafka
 *       client or Streams, no Lettuce, no {@code java.net.http}, no logging. The word is the marker:
 *       it is what the docs promise, so it is what is checked.
 *   <li><b>The product never reaches into the lab.</b> The production modules (schemas, redis,
 *       gate, relay, dispatcher, app) never name {@code io.sluice.lab} or
 *       {@code io.sluice.embedded} (the demo, bench, chaos, mock provider and in-JVM servers).
 *   <li><b>The dispatcher's parts keep to their seams.</b> Under {@code io.sluice.dispatcher.dispatch},
 *       {@code intake}, {@code lane}, {@code settlement} and {@code offsets} use, of the package
 *       root, only its shared vocabulary ({@code DispatchEntry}, {@code DispatchListener},
 *       {@code DispatchSpans}: the event, what is reported, what is traced), never
 *       the loop that wires them; and of each other only what {@link #SEAMS} allows (intake reads
 *       the owned partitions' offsets), so no two parts depend on each other.
 *   <li><b>A Redis key is named in its module's key class.</b> A string that starts a Sluice key
 *       ({@code "sluice:v1:"}, {@code "sluice:v2:"}) appears in main code only in the key class of
 *       the module that owns the key ({@link #KEY_CLASSES}), as a topic name only in {@code Topics}:
 *       so a key's format, version and hash tag are decided once, and listed in
 *       {@code docs/architecture.md}.
 *   <li><b>No package cycles.</b> The packages of main code, with an edge for each type one names of
 *       another (imported or written out), have no cycle but those {@link #ALLOWED_CYCLES} names,
 *       each with its reason: a cycle makes two packages one room with two doors.
 *   <li><b>Every main package says what it is</b>, in a {@code package-info.java} with a Javadoc.
 *   <li><b>Javadoc is checked as it compiles</b> (javac's doclint, in the root pom).
 *   <li><b>Types are imported, not written out.</b> Main code names no type by its full name
 *       inline ({@code java.util.concurrent.atomic.AtomicBoolean x = ...}) unless the file imports
 *       another type of that simple name (the one good reason); the files not cleaned yet are
 *       {@link #INLINE_NAMES_NOT_YET_GONE}, each with why.
 * </ol>
 */
class ArchitectureTest {
  static final List<String> PRODUCTION_MODULES = List.of("schemas", "redis", "gate", "relay", "dispatcher", "app");
  static final List<String> ALL_MODULES = List.of("schemas", "embedded", "testkit", "redis", "gate", "relay",
      "dispatcher", "app", "lab");

  /** The repository: the tests run in {@code app}, beside the other modules. */
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  /** What a pure class must not use: I/O clients and logging. */
  static final Pattern IMPURE = Pattern.compile(
      "\\b(org\\.apache\\.kafka\\.clients|org\\.apache\\.kafka\\.streams|io\\.lettuce|java\\.net\\.http"
          + "|org\\.slf4j|java\\.util\\.logging|org\\.apache\\.logging|org\\.apache\\.log4j)\\.");
  /** What the product must not use: the lab and the embedded servers. */
  static final Pattern LAB = Pattern.compile("\\bio\\.sluice\\.(lab|embedded)\\.");
  /** Which of the dispatcher's parts may use which. */
  static final Map<String, Set<String>> SEAMS = Map.of(
      "intake", Set.of("offsets"),
      "lane", Set.of(),
      "settlement", Set.of(),
      "offsets", Set.of());
  static final String DISPATCH = "io.sluice.dispatcher.dispatch";
  /** An import of the dispatcher package: the part (empty for the root) and the class. */
  static final Pattern DISPATCH_IMPORT = Pattern.compile(
      "^import (?:static )?io\\.sluice\\.dispatcher\\.dispatch\\.(?:(\\w+)\\.)?([A-Z]\\w*)", Pattern.MULTILINE);
  /** Where each module's Redis keys are built: the only main files a key prefix may appear in. */
  static final Map<String, String> KEY_CLASSES = Map.of(
      "redis/src/main/java/io/sluice/redis/RedisKeys.java", "the slot markers every role reads",
      "redis/src/main/java/io/sluice/redis/order/OrderKeys.java", "ordering keys' turns, gate and dispatcher",
      "dispatcher/src/main/java/io/sluice/dispatcher/DispatcherKeys.java", "leak, limits, busy, learned, pauses",
      // The gate's two: its single-rule and its multi-rule buckets.
      "gate/src/main/java/io/sluice/gate/limiter/BucketKey.java", "the single-rule bucket",
      "gate/src/main/java/io/sluice/gate/limiter/RuleKeys.java", "the multi-rule buckets");
  /** Keys still built beside their store, each with why, until its file is free to change. */
  static final Map<String, String> KEYS_NOT_YET_MOVED = Map.of(
      "redis/src/main/java/io/sluice/redis/tenants/TenantRegistry.java",
      "redis.tenants is being changed in another branch; its KEY moves to RedisKeys next",
      "dispatcher/src/main/java/io/sluice/dispatcher/dispatch/offsets/RedisDeliveredLog.java",
      "dispatcher.dispatch is being changed in another branch; its key moves to DispatcherKeys next",
      "dispatcher/src/main/java/io/sluice/dispatcher/dispatch/WaitsStore.java",
      "dispatcher.dispatch is being changed in another branch; its key moves to DispatcherKeys next");
  /** The package cycles allowed, each with why. Any other cycle, or one of these grown, fails. */
  static final Map<Set<String>, String> ALLOWED_CYCLES = Map.of(
      Set.of("io.sluice.dispatcher.dispatch", "io.sluice.dispatcher.dispatch.intake",
          "io.sluice.dispatcher.dispatch.lane", "io.sluice.dispatcher.dispatch.offsets",
          "io.sluice.dispatcher.dispatch.settlement"),
      "the root wires its parts and they use its vocabulary (DispatchEntry, DispatchListener) only: "
          + "dispatcherPartsKeepToTheirSeams holds them to that",
      Set.of("io.sluice.dispatcher.provider", "io.sluice.dispatcher.provider.auth"),
      "auth's OAuth2Tokens sends with BoundedBody and WholeDeadline, which HttpProvider uses unqualified; "
          + "they move to a package of their own once HttpProvider (changed in another branch) is free");
  /** Packages without a package-info.java, each with why. */
  static final Map<String, String> PACKAGES_NOT_YET_DESCRIBED = Map.of();
  /** Files still writing full names inline, each with why. */
  static final Map<String, String> INLINE_NAMES_NOT_YET_GONE = Map.of(
      "dispatcher/src/main/java/io/sluice/dispatcher/provider/HttpProvider.java",
      "being changed in another branch");
  /** A type named by its full name: its package is group 1, its simple name group 2. */
  static final Pattern FULL_NAME = Pattern.compile(
      "(?<![\\w.])((?:java|javax|jakarta|org|com|io)(?:\\.[a-z_]\\w*)+)\\.([A-Z]\\w*)");
  /** A type of Sluice named in code: its package is group 1. */
  static final Pattern SLUICE_TYPE = Pattern.compile("\\b(io\\.sluice(?:\\.[a-z]\\w*)+)\\.[A-Z]");
  /** A string literal that starts a Sluice Redis key. */
  static final Pattern KEY_PREFIX = Pattern.compile("\"sluice:v\\d+:");
  /** A class javadoc's claim to be pure. */
  static final Pattern SAYS_PURE = Pattern.compile("\\bPure\\b|\\bpure arithmetic\\b|\\bpure-Java\\b");

  @Test
  @DisplayName("a class documented as pure uses no Kafka client, Lettuce, java.net.http or logging")
  void pureClassesDoNoIo() {
    List<String> broken = new ArrayList<>();
    int pure = 0;
    for (Path file : mainSources(ALL_MODULES)) {
      String source = read(file);
      if (saysPure(source, file)) {
        pure++;
        broken.addAll(uses(IMPURE, ROOT.relativize(file), source));
      }
    }
    assertTrue(pure >= 30, "the rule finds the pure classes (" + pure + "): has the marker changed?");
    assertEquals(List.of(), broken);
  }

  @Test
  @DisplayName("the production modules never use the lab or the embedded servers")
  void productionNeverUsesTheLab() {
    List<String> broken = new ArrayList<>();
    for (Path file : mainSources(PRODUCTION_MODULES)) {
      broken.addAll(uses(LAB, ROOT.relativize(file), read(file)));
    }
    assertEquals(List.of(), broken);
  }

  @Test
  @DisplayName("the dispatcher's parts use only the root's vocabulary and the parts the seams allow")
  void dispatcherPartsKeepToTheirSeams() {
    Path root = ROOT.resolve("dispatcher/src/main/java/io/sluice/dispatcher/dispatch");
    List<String> broken = new ArrayList<>();
    for (Path file : mainSources(List.of("dispatcher"))) {
      Path rel = root.relativize(file);
      if (!file.startsWith(root) || rel.getNameCount() != 2) {
        continue; // the root itself wires the parts
      }
      broken.addAll(crossings(rel.getName(0).toString(), ROOT.relativize(file), read(file)));
    }
    assertEquals(List.of(), broken);
  }

  @Test
  @DisplayName("a Redis key prefix is written only in its module's key class")
  void redisKeysAreNamedInTheirModulesKeyClass() {
    List<String> broken = new ArrayList<>();
    int keyClasses = 0;
    for (Path file : mainSources(ALL_MODULES)) {
      String rel = ROOT.relativize(file).toString().replace('\\', '/');
      List<String> found = matches(KEY_PREFIX, Path.of(rel), withoutComments(read(file)));
      if (KEY_CLASSES.containsKey(rel)) {
        keyClasses += found.isEmpty() ? 0 : 1;
      } else if (!KEYS_NOT_YET_MOVED.containsKey(rel)) {
        broken.addAll(found);
      }
    }
    assertEquals(KEY_CLASSES.size(), keyClasses, "each key class builds keys: has a key class moved?");
    assertEquals(List.of(), broken);
  }

  @Test
  @DisplayName("main code has no package cycles but the allowed ones")
  void noPackageCycles() {
    Map<String, String> sources = new TreeMap<>();
    for (Path file : mainSources(ALL_MODULES)) {
      sources.put(ROOT.relativize(file).toString(), read(file));
    }
    List<Set<String>> cycles = cycles(packageGraph(sources.values()));
    assertTrue(cycles.containsAll(ALLOWED_CYCLES.keySet()), "an allowed cycle is gone or changed (remove it): " + cycles);
    assertEquals(List.of(), cycles.stream().filter(c -> !ALLOWED_CYCLES.containsKey(c)).toList());
  }

  @Test
  @DisplayName("every main package has a package-info.java with a Javadoc")
  void everyPackageSaysWhatItIs() {
    Set<Path> packages = new TreeSet<>();
    mainSources(ALL_MODULES).forEach(f -> packages.add(f.getParent()));
    List<String> missing = new ArrayList<>();
    for (Path dir : packages) {
      Path info = dir.resolve("package-info.java");
      String rel = ROOT.relativize(dir).toString().replace('\\', '/');
      if (!PACKAGES_NOT_YET_DESCRIBED.containsKey(rel)
          && (!Files.exists(info) || !read(info).trim().startsWith("/**"))) {
        missing.add(rel);
      }
    }
    assertEquals(List.of(), missing);
  }

  @Test
  @DisplayName("main code names no type by its full name inline, unless its simple name is taken")
  void typesAreImported() {
    List<String> broken = new ArrayList<>();
    for (Path file : mainSources(ALL_MODULES)) {
      String rel = ROOT.relativize(file).toString().replace('\\', '/');
      List<String> inline = inlineNames(Path.of(rel), read(file));
      if (!INLINE_NAMES_NOT_YET_GONE.containsKey(rel)) {
        broken.addAll(inline);
      } else if (inline.isEmpty()) {
        broken.add(rel + " is clean: it leaves INLINE_NAMES_NOT_YET_GONE");
      }
    }
    assertEquals(List.of(), broken);
  }

  @Test
  @DisplayName("the build checks Javadoc as it compiles: a broken link or tag fails it (doclint)")
  void javadocIsCheckedAsItCompiles() {
    assertTrue(read(ROOT.resolve("pom.xml")).contains("<arg>-Xdoclint:all,-missing</arg>"),
        "the root pom's compiler arguments keep -Xdoclint");
  }

  /** Each type {@code source} names by its full name in code, as file:line, but where its simple name is imported as another. */
  static List<String> inlineNames(Path file, String source) {
    Set<String> imported = new TreeSet<>();
    Matcher i = Pattern.compile("^import [\\w.]+\\.([A-Z]\\w*);", Pattern.MULTILINE).matcher(source);
    while (i.find()) {
      imported.add(i.group(1));
    }
    List<String> found = new ArrayList<>();
    String[] lines = codeOnly(source).split("\n", -1);
    for (int n = 0; n < lines.length; n++) {
      if (lines[n].startsWith("import ") || lines[n].startsWith("package ")) {
        continue;
      }
      Matcher m = FULL_NAME.matcher(lines[n]);
      while (m.find()) {
        String name = m.group(1) + "." + m.group(2);
        if (!imported.contains(m.group(2)) || source.contains("import " + name + ";")) {
          found.add(file + ":" + (n + 1) + " names " + name);
        }
      }
    }
    return found;
  }

  /** Package to the Sluice packages its files name a type of (itself left out). */
  static Map<String, Set<String>> packageGraph(Collection<String> sources) {
    Map<String, Set<String>> graph = new TreeMap<>();
    Pattern packageLine = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    for (String source : sources) {
      Matcher p = packageLine.matcher(source);
      if (p.find()) {
        graph.computeIfAbsent(p.group(1), k -> new TreeSet<>());
      }
    }
    for (String source : sources) {
      Matcher p = packageLine.matcher(source);
      if (!p.find()) {
        continue;
      }
      Matcher m = SLUICE_TYPE.matcher(codeOnly(source));
      while (m.find()) {
        if (graph.containsKey(m.group(1)) && !m.group(1).equals(p.group(1))) {
          graph.get(p.group(1)).add(m.group(1));
        }
      }
    }
    return graph;
  }

  /** The strongly connected parts of {@code graph} with more than one package (Tarjan's). */
  static List<Set<String>> cycles(Map<String, Set<String>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    List<Set<String>> found = new ArrayList<>();
    for (String v : graph.keySet()) {
      if (!index.containsKey(v)) {
        connect(v, graph, index, low, stack, found);
      }
    }
    return found;
  }

  private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
      Map<String, Integer> low, Deque<String> stack, List<Set<String>> found) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    for (String w : graph.getOrDefault(v, Set.of())) {
      if (!index.containsKey(w)) {
        connect(w, graph, index, low, stack, found);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (stack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> part = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        part.add(w);
      } while (!w.equals(v));
      if (part.size() > 1) {
        found.add(part);
      }
    }
  }

  /** The imports of {@code source}, a file of the part {@code part}, that cross a seam. */
  static List<String> crossings(String part, Path file, String source) {
    List<String> found = new ArrayList<>();
    Matcher m = DISPATCH_IMPORT.matcher(codeOnly(source));
    while (m.find()) {
      String to = m.group(1) == null ? "" : m.group(1);
      String cls = m.group(2);
      boolean allowed = to.equals(part)
          || (to.isEmpty() && (cls.equals("DispatchEntry") || cls.equals("DispatchListener")
              || cls.equals("DispatchSpans")))
          || SEAMS.getOrDefault(part, Set.of()).contains(to);
      if (!allowed) {
        found.add(file + " (" + part + ") uses " + DISPATCH + (to.isEmpty() ? "" : "." + to) + "." + cls);
      }
    }
    return found;
  }

  @Test
  @DisplayName("each rule catches a violation: an import, a qualified name, in a pure class or the product")
  void rulesCatchViolations() {
    String pureWithLogger = """
        package io.sluice.x;

        import org.slf4j.Logger;

        /** Decides something. Pure: time is passed in. */
        final class Decision {}
        """;
    assertTrue(saysPure(pureWithLogger, Path.of("Decision.java")));
    assertEquals(List.of("Decision.java:3 uses org.slf4j."), uses(IMPURE, Path.of("Decision.java"), pureWithLogger));

    String qualified = "final class Role {\n  Object o = new io.sluice.lab.demo.Demo();\n}\n";
    assertEquals(List.of("Role.java:2 uses io.sluice.lab."), uses(LAB, Path.of("Role.java"), qualified));

    String laneUsingSettlement = "package io.sluice.dispatcher.dispatch.lane;\n\n"
        + "import io.sluice.dispatcher.dispatch.DispatchEntry;\n"
        + "import io.sluice.dispatcher.dispatch.Dispatcher;\n"
        + "import io.sluice.dispatcher.dispatch.settlement.CallJudge;\n";
    assertEquals(List.of(
        "L.java (lane) uses io.sluice.dispatcher.dispatch.Dispatcher",
        "L.java (lane) uses io.sluice.dispatcher.dispatch.settlement.CallJudge"),
        crossings("lane", Path.of("L.java"), laneUsingSettlement));

    String key = "final class Store {\n  // sluice:v1:{p}:leak\n  String k = \"sluice:v1:{\" + p + \"}:leak\";\n}\n";
    assertEquals(List.of("Store.java:3 uses \"sluice:v1:"), matches(KEY_PREFIX, Path.of("Store.java"), withoutComments(key)));

    List<String> cyclic = List.of(
        "package io.sluice.a;\nimport io.sluice.b.B;\nfinal class A {}\n",
        "package io.sluice.b;\nfinal class B { io.sluice.a.A a; }\n",
        "package io.sluice.c;\nimport io.sluice.a.A;\nfinal class C {}\n");
    assertEquals(List.of(Set.of("io.sluice.a", "io.sluice.b")), cycles(packageGraph(cyclic)));

    String inline = "package io.sluice.x;\n\nimport java.util.concurrent.TimeoutException;\n\nfinal class K {\n"
        + "  java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();\n"
        + "  Class<?> kafka = org.apache.kafka.common.errors.TimeoutException.class;\n}\n";
    assertEquals(List.of("K.java:6 names java.util.concurrent.atomic.AtomicBoolean",
        "K.java:6 names java.util.concurrent.atomic.AtomicBoolean"), inlineNames(Path.of("K.java"), inline),
        "Kafka's TimeoutException is written out beside the imported one: allowed");

    String comment = "/** Unlike {@code io.lettuce.core.RedisClient}, pure wiring. */\nfinal class Wiring {}\n";
    assertTrue(!saysPure(comment, Path.of("Wiring.java")), "\"pure wiring\" is not a claim to be pure");
    assertEquals(List.of(), uses(IMPURE, Path.of("Wiring.java"), comment), "comments are not uses");
  }

  /** True when the javadoc just above {@code file}'s top-level type says the type is pure. */
  static boolean saysPure(String source, Path file) {
    String name = file.getFileName().toString().replace(".java", "");
    Matcher m = Pattern.compile("(/\\*\\*(?:(?!\\*/).)*\\*/)\\s*(?:@\\w+(?:\\([^)]*\\))?\\s*)*"
        + "(?:public\\s+)?(?:final\\s+|abstract\\s+|sealed\\s+)*(?:class|interface|record|enum)\\s+" + name + "\\b",
        Pattern.DOTALL).matcher(source);
    return m.find() && SAYS_PURE.matcher(m.group(1)).find();
  }

  /** Each line of code (comments and strings left out) that uses {@code forbidden}, as file:line. */
  static List<String> uses(Pattern forbidden, Path file, String source) {
    return matches(forbidden, file, codeOnly(source));
  }

  /** Each line of {@code text}, as it is, that matches {@code forbidden}, as file:line. */
  static List<String> matches(Pattern forbidden, Path file, String text) {
    List<String> found = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Matcher m = forbidden.matcher(lines[i]);
      if (m.find()) {
        found.add(file + ":" + (i + 1) + " uses " + m.group());
      }
    }
    return found;
  }

  /** {@code source} with comments and string literals blanked, line breaks kept. */
  static String codeOnly(String source) {
    return blanked(source, false);
  }

  /** {@code source} with comments blanked, string literals kept, line breaks kept. */
  static String withoutComments(String source) {
    return blanked(source, true);
  }

  private static String blanked(String source, boolean keepStrings) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    while (i < source.length()) {
      char c = source.charAt(i);
      if (source.startsWith("/*", i)) {
        int end = source.indexOf("*/", i + 2);
        end = end < 0 ? source.length() : end + 2;
        source.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
        i = end;
      } else if (source.startsWith("//", i)) {
        while (i < source.length() && source.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '"') {
        int end = source.startsWith("\"\"\"", i) ? source.indexOf("\"\"\"", i + 3) + 3 : stringEnd(source, i);
        end = end < i ? source.length() : end;
        if (keepStrings) {
          out.append(source, i, end);
        } else {
          source.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
          out.append("\"\"");
        }
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static int stringEnd(String source, int open) {
    for (int i = open + 1; i < source.length(); i++) {
      char c = source.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '"' || c == '\n') {
        return i + 1;
      }
    }
    return source.length();
  }

  /** The main Java sources of {@code modules}. */
  static List<Path> mainSources(List<String> modules) {
    List<Path> files = new ArrayList<>();
    for (String module : modules) {
      Path dir = ROOT.resolve(module).resolve("src/main/java");
      assertTrue(Files.isDirectory(dir), "no sources at " + dir);
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
