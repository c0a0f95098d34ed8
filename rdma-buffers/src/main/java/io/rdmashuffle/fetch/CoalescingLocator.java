/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.ChecksumAnswer;
import io.rdmashuffle.mapoutput.ChecksumRequest;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.MetaFileLayout;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.PeerAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The locator the block fetchers of one process share: their locate calls to one owner go out at
 * most {@code callsPerOwner} at a time ({@link #callsPerOwner}: enough to keep the owner's call
 * workers busy while answers travel, no more to wait in its queue), and those that wait meanwhile
 * go out merged, one call for several tasks' requests of one shuffle (the union of their map
 * outputs over the span of their partitions, within one answer and one request, its answer planned
 * at most {@value #MAX_SPREAD} times the answers of its callers alone: a task's next batches always
 * merge, tasks of nearby partitions do). Each caller gets the answer for its own map outputs, in
 * its order; a failed call fails every caller it carried, and each asks again as it would have
 * alone.
 *
 * <p>Leases: a call of one caller holds the owner's leases under that caller's reader id, as
 * before; a merged call holds them under an id of its own, and this locator releases a map output
 * of it once every caller that asked for it there released it. So no caller's release ends a lease
 * another caller still READs under, whatever order the owner's workers handle calls in.
 *
 * <p>Requests of reader 0 (no leases) go straight to the owner. Thread-safe; never blocks.
 */
public final class CoalescingLocator implements Locator {
  /**
   * A merged call's answer is planned at most this many times the answers its callers would get
   * alone (it carries the entries of every caller's partitions for each of its map outputs; each
   * caller ignores the others').
   */
  static final int MAX_SPREAD = 2;

  /**
   * Locate calls in flight to one owner per call worker it has: one being answered, one on its way
   * (with one a worker idles while each answer travels and the next call is sent: measured, 0.8x
   * the READs/s of unbounded calls at 64 and 256 readers of one process, against 0.9-1.3x with
   * two).
   */
  static final int CALLS_PER_WORKER = 2;

  private final Locator owners;
  private final int callsPerOwner;

  private final Map<Peer, Line> lines = new HashMap<>();

  /** Per leased map output: the reader ids its leases are held under, and who needs each one. */
  private final Map<Held, Map<Long, Set<Long>>> holders = new HashMap<>();

  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong calls = new AtomicLong();

  /**
   * @param owners the locator that asks the owners
   * @param callsPerOwner locate calls in flight to one owner at once ({@link #callsPerOwner} of the
   *     owners' {@code call.workers})
   */
  public CoalescingLocator(Locator owners, int callsPerOwner) {
    if (callsPerOwner < 1) {
      throw new IllegalArgumentException("callsPerOwner=" + callsPerOwner + ": must be >= 1");
    }
    this.owners = owners;
    this.callsPerOwner = callsPerOwner;
  }

  /** The calls in flight to one owner whose call workers number {@code ownerCallWorkers}. */
  public static int callsPerOwner(int ownerCallWorkers) {
    return CALLS_PER_WORKER * ownerCallWorkers;
  }

  private record Peer(PeerAddress owner, String application) {}

  private record Held(Peer peer, String shuffle, String map) {}

  /** The calls to one owner in flight, and the requests waiting for one of them to end. */
  private static final class Line {
    int inFlight;
    final ArrayDeque<Asked> waiting = new ArrayDeque<>();
  }

  /** One caller's request and its answer. */
  private static final class Asked {
    final LocateRequest request;
    final CompletableFuture<LocateAnswer> answer = new CompletableFuture<>();

    /** Maps its caller released while this waited: their leases are nobody's to hold. */
    final Set<String> released = new HashSet<>();

    /** The answer planned for this request alone. */
    final long answerBytes;

    /**
     * Sent in a call of its own: a merged call it was in did not fit the owner's own bound (the
     * owner deferred every map output of it, or refused the call as too large), and only alone do
     * its caller's own smaller asks mean what they should.
     */
    boolean alone;

    Asked(LocateRequest request) {
      this.request = request;
      this.answerBytes =
          LocateLayout.plannedAnswerBytes(
              request.maps(),
              request.endPartition() - request.startPartition(),
              request.localPaths());
    }
  }

  /** One call to an owner: the requests it carries, and what it asks for. */
  private final class Call {
    final Peer peer;
    final String shuffle;
    final boolean local;
    final List<Asked> callers = new ArrayList<>();
    final LinkedHashSet<String> maps = new LinkedHashSet<>();
    int start;
    int end;

    /** The answers planned for its callers alone, summed. */
    long alone;

    long requestBytes;

    /** Its maps' planned entries without partitions, and the answer's header. */
    long answerBase = LocateLayout.MAX_ANSWER_HEADER_BYTES;

    /** The id its leases are held under; set when it is sent. */
    long reader;

    Call(Peer peer, Asked first) {
      LocateRequest r = first.request;
      this.peer = peer;
      this.shuffle = r.shuffle();
      this.local = r.localPaths();
      this.start = r.startPartition();
      this.end = r.endPartition();
      this.requestBytes = LocateLayout.requestHeadBytes(shuffle);
      take(first, r.maps());
    }

    /** Joins {@code a} to this call if the merged call stays within its bounds. */
    boolean join(Asked a) {
      LocateRequest r = a.request;
      if (!r.shuffle().equals(shuffle) || r.localPaths() != local) {
        return false;
      }
      int s = Math.min(start, r.startPartition());
      int e = Math.max(end, r.endPartition());
      LinkedHashSet<String> added = new LinkedHashSet<>();
      long addedBytes = 0;
      long addedBase = 0;
      for (String m : r.maps()) {
        if (!maps.contains(m) && added.add(m)) {
          addedBytes += LocateLayout.requestMapBytes(m);
          addedBase += LocateLayout.plannedEntryBytes(m, 0, local);
        }
      }
      if (e - s > MetaFileLayout.MAX_PARTITIONS
          || maps.size() + added.size() > LocateRequest.MAX_MAPS
          || requestBytes + addedBytes > owners.maxRequestBytes()) {
        return false;
      }
      long merged =
          answerBase
              + addedBase
              + (maps.size() + added.size()) * (long) (e - s) * LocateLayout.MAX_PARTITION_BYTES;
      if (merged > owners.maxAnswerBytes() || merged > MAX_SPREAD * (alone + a.answerBytes)) {
        return false;
      }
      start = s;
      end = e;
      take(a, added);
      return true;
    }

    private void take(Asked a, Iterable<String> newMaps) {
      callers.add(a);
      for (String m : newMaps) {
        maps.add(m);
        requestBytes += LocateLayout.requestMapBytes(m);
        answerBase += LocateLayout.plannedEntryBytes(m, 0, local);
      }
      alone += a.answerBytes;
    }

    LocateRequest request() {
      if (callers.size() == 1) {
        return callers.get(0).request;
      }
      return new LocateRequest(shuffle, List.copyOf(maps), start, end, local, reader);
    }

    /**
     * Answers every caller its own map outputs of {@code a}, in its order, or fails it with {@code
     * t}; returns the callers of a merged call to send again alone: those the owner deferred
     * entirely (its bound is lower than this process's) or all of them when it refused the call as
     * too large. Their own asks for less then apply to what they asked, not to the merged call.
     */
    List<Asked> complete(LocateAnswer a, Throwable t) {
      List<Asked> again = new ArrayList<>();
      if (callers.size() == 1) {
        if (t != null) {
          callers.get(0).answer.completeExceptionally(t);
        } else {
          callers.get(0).answer.complete(a);
        }
        return again;
      }
      if (t != null) {
        Throwable cause =
            t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        boolean tooLarge =
            cause instanceof CallRefusedException r && r.status() == CallRefusedException.TOO_LARGE;
        for (Asked c : callers) {
          if (tooLarge) {
            again.add(c);
          } else {
            c.answer.completeExceptionally(t);
          }
        }
        return again;
      }
      Map<String, Located> byMap = new HashMap<>();
      for (Located e : a.maps()) {
        byMap.putIfAbsent(e.map(), e);
      }
      for (Asked c : callers) {
        List<Located> own = new ArrayList<>(c.request.maps().size());
        boolean deferred = true;
        for (String m : c.request.maps()) {
          Located e = byMap.get(m);
          if (e != null) {
            own.add(e); // a map missing from the answer: the caller finds its answer short
            deferred &= e.status() == LocateAnswer.Status.DEFERRED;
          }
        }
        if (deferred && own.size() == c.request.maps().size()) {
          again.add(c);
        } else {
          c.answer.complete(new LocateAnswer(a.transport(), a.responder(), own));
        }
      }
      return again;
    }
  }

  @Override
  public CompletableFuture<LocateAnswer> locate(
      PeerAddress owner, String application, LocateRequest request) {
    if (request.reader() == 0) {
      return owners.locate(owner, application, request); // holds no lease: nothing to share
    }
    requests.incrementAndGet();
    Asked a = new Asked(request);
    Peer peer = new Peer(owner, application);
    List<Call> ready;
    synchronized (this) {
      Line line = lines.computeIfAbsent(peer, k -> new Line());
      line.waiting.add(a);
      ready = drain(peer, line);
    }
    ready.forEach(this::send);
    return a.answer;
  }

  /** The calls that may go to {@code peer} now, from what waits; holds their leases. */
  private List<Call> drain(Peer peer, Line line) {
    List<Call> ready = new ArrayList<>();
    while (line.inFlight < callsPerOwner && !line.waiting.isEmpty()) {
      Asked first = line.waiting.poll();
      Call c = new Call(peer, first);
      for (Iterator<Asked> it = line.waiting.iterator(); !first.alone && it.hasNext(); ) {
        Asked next = it.next();
        if (!next.alone && c.join(next)) {
          it.remove();
        }
      }
      c.reader =
          c.callers.size() == 1 ? c.callers.get(0).request.reader() : ReaderLeases.newReaderId();
      if (!c.local) {
        hold(c);
      }
      line.inFlight++;
      ready.add(c);
    }
    if (line.inFlight == 0 && line.waiting.isEmpty()) {
      lines.remove(peer);
    }
    return ready;
  }

  /** Notes who needs the leases {@code c} holds: each of its callers, for the maps it asked. */
  private void hold(Call c) {
    for (Asked a : c.callers) {
      for (String m : a.request.maps()) {
        if (a.released.contains(m)) {
          continue;
        }
        holders
            .computeIfAbsent(new Held(c.peer, c.shuffle, m), k -> new LinkedHashMap<>())
            .computeIfAbsent(c.reader, k -> new HashSet<>())
            .add(a.request.reader());
      }
    }
  }

  private void send(Call c) {
    calls.incrementAndGet();
    CompletableFuture<LocateAnswer> f;
    try {
      f = owners.locate(c.peer.owner(), c.peer.application(), c.request());
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((a, t) -> answered(c, a, t));
  }

  private void answered(Call c, LocateAnswer a, Throwable t) {
    List<Asked> again = c.complete(a, t);
    List<Call> ready;
    synchronized (this) {
      Line line = lines.get(c.peer);
      line.inFlight--;
      for (int i = again.size() - 1; i >= 0; i--) {
        Asked x = again.get(i);
        x.alone = true;
        line.waiting.addFirst(x); // first: they waited longest
      }
      ready = drain(c.peer, line);
    }
    ready.forEach(this::send);
  }

  /**
   * A caller is done with some map outputs: the owner is told for each lease no other caller still
   * needs (a call of that caller alone: at once).
   */
  @Override
  public void release(PeerAddress owner, String application, ReleaseRequest request) {
    Peer peer = new Peer(owner, application);
    Map<Long, List<String>> done = new LinkedHashMap<>();
    synchronized (this) {
      Line line = lines.get(peer);
      if (line != null) {
        // a caller that closes releases what it still waits to locate: no lease of it is needed
        for (Asked w : line.waiting) {
          if (w.request.reader() == request.reader()
              && w.request.shuffle().equals(request.shuffle())) {
            w.released.addAll(request.maps());
          }
        }
      }
      for (String m : request.maps()) {
        Held k = new Held(peer, request.shuffle(), m);
        Map<Long, Set<Long>> leases = holders.get(k);
        if (leases == null) {
          continue;
        }
        for (Iterator<Map.Entry<Long, Set<Long>>> it = leases.entrySet().iterator();
            it.hasNext(); ) {
          Map.Entry<Long, Set<Long>> e = it.next();
          if (e.getValue().remove(request.reader()) && e.getValue().isEmpty()) {
            it.remove();
            done.computeIfAbsent(e.getKey(), r -> new ArrayList<>()).add(m);
          }
        }
        if (leases.isEmpty()) {
          holders.remove(k);
        }
      }
    }
    for (Map.Entry<Long, List<String>> e : done.entrySet()) {
      owners.release(
          owner, application, new ReleaseRequest(e.getKey(), request.shuffle(), e.getValue()));
    }
  }

  @Override
  public long maxAnswerBytes() {
    return owners.maxAnswerBytes();
  }

  @Override
  public long maxRequestBytes() {
    return owners.maxRequestBytes();
  }

  @Override
  public CompletableFuture<ChecksumAnswer> checksum(
      PeerAddress owner, String application, ChecksumRequest request) {
    return owners.checksum(owner, application, request);
  }

  /** Locate requests taken from callers (reader 0's aside). */
  public long requests() {
    return requests.get();
  }

  /** Locate calls sent to owners for them: fewer than {@link #requests} by those merged. */
  public long calls() {
    return calls.get();
  }

  /** Map outputs whose leases wait for a caller's release (tests). */
  synchronized int heldOutputs() {
    return holders.size();
  }
}
