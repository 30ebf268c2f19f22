package io.sluice.gate;

import io.sluice.gate.limiter.Acquisition;
import io.sluice.gate.limiter.BucketKey;
import io.sluice.gate.limiter.GateLimiter;
import io.sluice.gate.limiter.LimiterDecision;
import io.sluice.gate.limiter.MultiRuleLimiter;
import io.sluice.gate.limiter.RulesAcquisition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A stream task's events between arrival and routing, in arrival order: several events wait for
 * the store at once, their calls sent together ({@link GateLimiter#send}, {@link
 * MultiRuleLimiter#send}: one script call for a batch), instead of one blocking round trip per
 * event of a tenant too quiet for a lease, or per event under several rules.
 *
 * <h2>Why the gate's guarantees still hold</h2>
 * <ul>
 *   <li>Order: events are routed strictly in the order they came (an event decided at once by its
 *       lease waits behind earlier events still waiting for the store), so every output
 *       partition gets its records in input order.
 *   <li>Exactly once: Kafka Streams commits a task's offsets only after its caches are flushed,
 *       and {@link PendingFlush} drains every pending event there, on the stream thread, into
 *       the transaction about to commit: no offset is committed before its event's output.
 *       After a crash the uncommitted events are read and decided again (charged twice at most:
 *       stricter, never looser, as before).
 *   <li>One bucket, one call at a time: an event whose bucket has a call out waits without
 *       deciding ({@link GateLimiter.Pending#busy()}) and is decided as soon as that call is
 *       finished, before any later event of the bucket, with the lease or places it brought. So
 *       each bucket sees exactly the requests, in exactly the order, that deciding the events
 *       one by one would send: the leases, places, releases and slot markers work unchanged.
 * </ul>
 * A batch goes out when {@link #BATCH} calls are ready, and whatever is left every few
 * milliseconds (the limit node's punctuation, which routes what is answered without waiting) and
 * before every commit (which routes everything, waiting as long as it takes). At most {@link #MAX_WAITING}
 * events wait; beyond that the thread waits for the oldest.
 */
final class PendingEvents {
  /** Calls sent in one batch. */
  static final int BATCH = 64;
  /** Events waiting before the thread waits for the oldest. */
  static final int MAX_WAITING = 4 * BATCH;

  /** An event as the queue sees it: decided, or waiting for a call, or for its bucket's call. */
  abstract static class Event {
    private LimiterDecision decision;
    /** A {@link GateLimiter.Pending} or a {@link MultiRuleLimiter.Pending} call to make. */
    private Object call;

    /** The bucket whose call it may wait for; null for an event that waits for none. */
    abstract BucketKey key();

    /** Asks its limiter: then it is {@link #decided}, {@link #calls}, or waits for its bucket. */
    abstract void begin();

    final void decided(LimiterDecision d) {
      decision = d;
      call = null;
    }

    /** The event's single-bucket call; its bucket's next event waits for it. */
    final void calls(GateLimiter.Pending p) {
      if (p.decided() != null) {
        decided(p.decided());
      } else if (!p.busy()) {
        call = p;
      }
    }

    /** The event's multi-rule call. */
    final void calls(MultiRuleLimiter.Pending p) {
      if (p.decided() != null) {
        decided(p.decided());
      } else {
        call = p;
      }
    }

    final LimiterDecision decision() {
      return decision;
    }

    final Object call() {
      return call;
    }

    final boolean waitsForItsBucket() {
      return decision == null && call == null;
    }
  }

  private static final class Slot {
    final Event event;
    CompletableFuture<? extends List<?>> batch;
    int index;

    Slot(Event event) {
      this.event = event;
    }
  }

  private final GateLimiter limiter;
  private final MultiRuleLimiter rules;
  private final Consumer<Event> route;
  private final ArrayDeque<Slot> queue = new ArrayDeque<>();
  private final List<Slot> unsentBuckets = new ArrayList<>();
  private final List<Slot> unsentRules = new ArrayList<>();
  private int waitingForBucket;

  PendingEvents(GateLimiter limiter, MultiRuleLimiter rules, Consumer<Event> route) {
    this.limiter = limiter;
    this.rules = rules;
    this.route = route;
  }

  /** Takes an event that has begun ({@link Event#begin}). */
  void add(Event event) {
    Slot slot = new Slot(event);
    queue.add(slot);
    if (event.waitsForItsBucket()) {
      waitingForBucket++;
    } else if (event.decision() == null) {
      toSend(slot);
    }
    drainReady();
    while (queue.size() > MAX_WAITING) {
      routeHead();
    }
  }

  /** Routes the events at the head whose decisions are in, without waiting. */
  void drainReady() {
    while (!queue.isEmpty()) {
      Slot head = queue.peek();
      if (head.event.decision() == null && (head.batch == null || !head.batch.isDone())) {
        return;
      }
      routeHead();
    }
  }

  /** Sends the calls not sent yet, and routes the events at the head whose decisions are in. */
  void sendAndDrainReady() {
    send();
    drainReady();
  }

  /** Sends what is ready and routes every event, waiting for the store as long as it takes. */
  void drainAll() {
    while (!queue.isEmpty()) {
      routeHead();
    }
  }

  /**
   * Settles every event's call and forgets the events without routing any: the task is closing
   * dirty, or starting again after one (Kafka Streams revives a corrupted task with the same
   * processor objects and reads its input again from the last commit, so an event still here
   * would be routed a second time beside its re-read self, into the revived task's transaction).
   * Each call out or not yet sent is still finished as its answer says, so the limiter's leases,
   * places and one-call-per-bucket state stay what the store holds; an event whose call was
   * charged is charged again when it is read again: stricter, never looser.
   *
   * @return how many events were dropped
   */
  int discardAll() {
    int dropped = queue.size();
    while (!queue.isEmpty()) {
      decideHead();
    }
    unsentBuckets.clear();
    unsentRules.clear();
    waitingForBucket = 0;
    return dropped;
  }

  int size() {
    return queue.size();
  }

  private void toSend(Slot slot) {
    List<Slot> unsent = slot.event.call() instanceof GateLimiter.Pending ? unsentBuckets : unsentRules;
    unsent.add(slot);
    if (unsent.size() >= BATCH) {
      send(unsent);
    }
  }

  private void send() {
    send(unsentBuckets);
    send(unsentRules);
  }

  private void send(List<Slot> unsent) {
    if (unsent.isEmpty()) {
      return;
    }
    CompletableFuture<? extends List<?>> batch;
    if (unsent == unsentBuckets) {
      List<GateLimiter.Pending> calls = new ArrayList<>(unsent.size());
      unsent.forEach(s -> calls.add((GateLimiter.Pending) s.event.call()));
      batch = limiter.send(calls);
    } else {
      List<MultiRuleLimiter.Pending> calls = new ArrayList<>(unsent.size());
      unsent.forEach(s -> calls.add((MultiRuleLimiter.Pending) s.event.call()));
      batch = rules.send(calls);
    }
    for (int i = 0; i < unsent.size(); i++) {
      unsent.get(i).batch = batch;
      unsent.get(i).index = i;
    }
    unsent.clear();
  }

  /** Decides the head (waiting for its batch if need be), routes it, and starts its bucket's next. */
  private void routeHead() {
    route.accept(decideHead());
  }

  /** Decides the head (waiting for its batch if need be), takes it off and starts its bucket's next. */
  private Event decideHead() {
    Slot head = queue.peek();
    Event e = head.event;
    if (e.decision() == null) {
      if (head.batch == null) {
        send();
      }
      Object call = e.call();
      long sent = call instanceof GateLimiter.Pending g ? g.sentNanos() : ((MultiRuleLimiter.Pending) call).sentNanos();
      long left = limiter.timeoutNanos() - (limiter.nanoTime() - sent);
      Object answer = null;
      Throwable failure = null;
      try {
        List<?> answers = head.batch.getNow(null);
        if (answers == null) {
          // About to wait: whatever else is ready goes out first, so the store works on it
          // meanwhile (a call begun after its bucket's previous one is not left for later).
          send();
          answers = head.batch.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        }
        answer = answers.get(head.index);
      } catch (ExecutionException x) {
        failure = x.getCause() == null ? x : x.getCause();
      } catch (Exception x) {
        failure = x;
      }
      if (call instanceof GateLimiter.Pending g) {
        e.decided(failure == null ? limiter.finish(g, (Acquisition) answer) : limiter.fail(g, failure));
        beginNextOf(e.key());
      } else {
        MultiRuleLimiter.Pending m = (MultiRuleLimiter.Pending) call;
        e.decided(failure == null ? rules.finish(m, (RulesAcquisition) answer) : rules.fail(m, failure));
      }
    }
    queue.poll();
    return e;
  }

  /**
   * The bucket's call is finished: the first event that waited for it begins now (its lease or
   * places may serve it, and the ones after it, else it makes the bucket's next call).
   */
  private void beginNextOf(BucketKey key) {
    if (waitingForBucket == 0) {
      return;
    }
    for (Iterator<Slot> it = queue.iterator(); it.hasNext(); ) {
      Slot s = it.next();
      if (!s.event.waitsForItsBucket() || !Objects.equals(s.event.key(), key)) {
        continue;
      }
      waitingForBucket--;
      s.event.begin();
      if (s.event.decision() == null) {
        if (s.event.call() != null) {
          toSend(s);
        } else {
          waitingForBucket++; // still busy (cannot happen: the bucket's call just finished)
        }
        return;
      }
    }
  }
}
