/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadTargets;
import io.rdmashuffle.transport.engine.WorkRequestRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link WorkRequestRing} is not thread-safe by contract: its channel guards it with the channel's
 * lock, readers add to it as they post and the agent takes from it as completions name READs. So it
 * is raced here as it runs, inside a {@link VerbsReadChannel}: a READ gets the next sequence number
 * and the next slot, a completion ends the READs from the oldest up to the one it names, and a
 * completion naming a READ already ended (late, or duplicate) matches nothing, even once its slot
 * holds a newer READ.
 */
public final class WorkRequestRingTests {
  private WorkRequestRingTests() {}

  /** Never run: a channel asks its agent only whether it is on the agent thread (no). */
  private static final VerbsAgent AGENT =
      new VerbsAgent(new FakeCompletionQueue(), 1, 1, new TransportMetrics(), 1, ch -> {}, 0);

  /** A queue pair that records the work request ids it was asked to post (under the lock). */
  static final class Recorded implements QueuePair {
    private final long[] staged = new long[MAX_BATCH];
    final long[] posted = new long[4];
    final Thread[] postedBy = new Thread[4];
    int count;

    @Override
    public void setRead(
        int index,
        long wrId,
        boolean signaled,
        long remoteAddress,
        int rkey,
        long localAddress,
        int length,
        int lkey) {
      staged[index] = wrId;
    }

    @Override
    public void post(int n) {
      for (int i = 0; i < n; i++) {
        postedBy[count] = Thread.currentThread();
        posted[count++] = staged[i];
      }
    }

    @Override
    public boolean destroy() {
      return true;
    }

    @Override
    public boolean moveToError() {
      return true;
    }

    /** The sequence number (low bits) of the {@code i}th work request posted, or -1. */
    int sequence(int i) {
      return i < count ? (int) posted[i] : -1;
    }
  }

  static VerbsReadChannel channel(QueuePair qp, int depth) {
    VerbsReadChannel ch =
        new VerbsReadChannel(new PeerAddress("127.0.0.1", 1), "app", depth, 1 << 20, qp, AGENT);
    ch.key(0); // as registering does: posts go out from now on
    return ch;
  }

  /** Bit 1 for a READ named "a", 2 for "b", summed over what a completion ended. */
  static int names(EndedReads out) {
    int mask = 0;
    for (int i = 0; i < out.count(); i++) {
      mask |= "a".equals(out.op(i).attachment()) ? 1 : 2;
      ReadTargets.ended(out.op(i));
    }
    return mask;
  }

  /**
   * A channel of depth 1: READ "a" (sequence 0) in flight in the ring's one slot. A reader posts
   * "b" while the agent takes the completion of "a" and then rings the doorbell for what that
   * admitted. "b" gets sequence 1 in "a"'s old slot; the duplicate of a's completion, after both,
   * matches nothing.
   */
  @JCStressTest
  @Description("post vs the completion of the READ in flight, its slot reused")
  @Outcome(
      id = "1, 1, 0, 1, 0",
      expect = ACCEPTABLE,
      desc =
          "a ended; b posted as sequence 1 by its reader (room found, or admitted by the completion before its reader's doorbell); the duplicate matched nothing")
  @Outcome(
      id = "1, 1, 0, 1, 1",
      expect = ACCEPTABLE_INTERESTING,
      desc = "a ended; b waited for the room, the agent's completion admitted and posted it")
  @Outcome(
      expect = FORBIDDEN,
      desc = "b ended by a's completion, b lost or posted twice, or the duplicate matched b")
  @State
  public static class PostVsCompletionSlotReused {
    final Recorded qp = new Recorded();
    final VerbsReadChannel channel = channel(qp, 1);
    final EndedReads ended = new EndedReads(2);
    volatile Thread agentThread;

    public PostVsCompletionSlotReused() {
      channel.post(ReadTargets.read(64, "a"));
    }

    @Actor
    public void reader() {
      channel.post(ReadTargets.read(64, "b"));
    }

    @Actor
    public void agent(IIIII_Result r) {
      agentThread = Thread.currentThread();
      channel.takeCompleted(qp.sequence(0), ended, 0);
      channel.postNow(); // the doorbell for what the completion admitted, after the round
      r.r1 = names(ended);
    }

    @Arbiter
    public void after(IIIII_Result r) {
      r.r2 = qp.count == 2 ? qp.sequence(1) : -qp.count;
      EndedReads late = new EndedReads(2);
      r.r3 = channel.takeCompleted(qp.sequence(0), late, 0) ? 1 : 0;
      names(late);
      r.r4 = channel.postedCount();
      r.r5 = qp.count == 2 && qp.postedBy[1] == agentThread ? 1 : 0;
      EndedReads rest = new EndedReads(2);
      channel.takeAll(rest);
      names(rest);
    }
  }

  /**
   * Two readers post one READ each on a channel of depth 2: each gets its own sequence number and
   * slot, in the order they were posted; the completion naming the later one ends both.
   */
  @JCStressTest
  @Description("post vs post into one ring")
  @Outcome(
      id = "3, 2, 1, 0",
      expect = ACCEPTABLE,
      desc = "a posted first (sequence 0), b second; b's completion ended both")
  @Outcome(
      id = "3, 2, 2, 0",
      expect = ACCEPTABLE,
      desc = "b posted first (sequence 0), a second; a's completion ended both")
  @Outcome(
      expect = FORBIDDEN,
      desc = "a READ lost or ended twice, a sequence number given twice, a slot overwritten")
  @State
  public static class TwoPosters {
    final Recorded qp = new Recorded();
    final VerbsReadChannel channel = channel(qp, 2);
    final EndedReads ended = new EndedReads(2);

    @Actor
    public void reader1() {
      channel.post(ReadTargets.read(64, "a"));
    }

    @Actor
    public void reader2() {
      channel.post(ReadTargets.read(64, "b"));
    }

    @Arbiter
    public void after(IIII_Result r) {
      boolean inOrder = qp.count == 2 && qp.sequence(0) == 0 && qp.sequence(1) == 1;
      channel.takeCompleted(inOrder ? 1 : -1, ended, 0);
      r.r2 = ended.count();
      r.r3 = ended.count() > 0 ? ("a".equals(ended.op(0).attachment()) ? 1 : 2) : 0;
      r.r1 = names(ended);
      r.r4 = channel.postedCount();
      EndedReads rest = new EndedReads(2);
      channel.takeAll(rest);
      names(rest);
    }
  }
}
