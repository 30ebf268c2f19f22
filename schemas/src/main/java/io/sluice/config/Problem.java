package io.sluice.config;

/**
 * One thing wrong with a configuration: the dotted path of the setting ({@code ladder[2]},
 * {@code providers.payments-api.rate}) and what was expected. Collected, never thrown one by one,
 * so {@link ConfigException} can list them all.
 */
record Problem(String path, String text) implements Comparable<Problem> {

  static String join(String parent, String key) {
    return parent.isEmpty() ? key : parent + "." + key;
  }

  static String index(String parent, int index) {
    return parent + "[" + index + "]";
  }

  Problem withNote(String note) {
    return new Problem(path, text + " " + note);
  }

  @Override
  public int compareTo(Problem other) {
    int byPath = path.compareTo(other.path);
    return byPath != 0 ? byPath : text.compareTo(other.text);
  }

  @Override
  public String toString() {
    return path.isEmpty() ? text : path + ": " + text;
  }
}
