package io.sluice.gate.limiter;

/**
 * Places in a bucket's waiting line that their holder will not use, sent along with its next
 * request: the bucket shortens its line by them if the line still ends where these places end
 * (nobody queued behind them). Otherwise they stay a gap in the line, which only makes later
 * events wait a little longer (stricter, never looser).
 *
 * @param lineEndMicros the line's end after the places were taken (from {@link Acquisition#lineEndMicros()})
 * @param unused        units of line not handed out, &ge; 1
 */
public record PlacesRelease(long lineEndMicros, int unused) {
  public PlacesRelease {
    if (lineEndMicros < 1 || unused < 1) {
      throw new IllegalArgumentException("places to give back need a line end and unused >= 1: " + this);
    }
  }

  /** The form the script reads: "line_end unused". */
  String encode() {
    return lineEndMicros + " " + unused;
  }
}
