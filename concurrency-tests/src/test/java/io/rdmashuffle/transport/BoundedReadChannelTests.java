/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.ArrayList;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.ZZI_Result;

/**
 * {@link BoundedReadChannel}'s admission raced: READs are issued only within the bounds (count and
 * bytes) and a READ is refused or left waiting only while the room is taken; room a READ's end
 * frees goes to the READ waiting for it. Never over the bound, never a lost permit.
 */
public final class BoundedReadChannelTests {
  private BoundedReadChannelTests() {}

  /** A transport that only records what was issued to it, in order (under the channel's lock). */
  static final class Recording extends BoundedReadChannel {
    private final List<ReadOp> issued = new ArrayList<>();

    Recording(int maxRequests, long maxBytes) {
      super(new PeerAddress("127.0.0.1", 1), "app", maxRequests, maxBytes);
    }

    @Override
    protected void issue(ReadOp op) {
      issued.add(op);
    }

    @Override
    protected void afterIssue() {}

    @Override
    public void close() {
      throw new AssertionError("not closed here");
    }

    @Override
    protected void fail(ReadOp op, TransportException e) {
      throw new AssertionError("no READ fails here", e);
    }

    /** The transport's completion of its oldest issued READ: frees its room. */
    boolean completeOldest() {
      ReadOp op;
      boolean admitted;
      state.lock();
      try {
        op = issued.remove(0);
        admitted = releaseLocked(1, op.length());
      } finally {
        state.unlock();
      }
      ReadTargets.ended(op);
      return admitted;
    }

    int issuedCount() {
      state.lock();
      try {
        return issued.size();
      } finally {
        state.unlock();
      }
    }

    /** Ends every READ still issued (the test's cleanup). */
    void endAll() {
      while (issuedCount() > 0) {
        completeOldest();
      }
    }
  }

  /** Two readers try one READ each where the count bound leaves room for one. */
  @JCStressTest
  @Description("tryPost vs tryPost, room for one READ (count bound)")
  @Outcome(
      id = "true, false, 1",
      expect = ACCEPTABLE,
      desc = "the first is taken, the second refused")
  @Outcome(
      id = "false, true, 1",
      expect = ACCEPTABLE,
      desc = "the first is taken, the second refused")
  @Outcome(expect = FORBIDDEN, desc = "both taken (over the bound) or both refused (a lost permit)")
  @State
  public static class TryPostsAgainstTheCountBound {
    final Recording channel = new Recording(1, 1 << 20);

    @Actor
    public void reader1(ZZI_Result r) {
      r.r1 = channel.tryPost(ReadTargets.read(64, "a"));
    }

    @Actor
    public void reader2(ZZI_Result r) {
      r.r2 = channel.tryPost(ReadTargets.read(64, "b"));
    }

    @Arbiter
    public void after(ZZI_Result r) {
      r.r3 = channel.issuedCount();
      channel.endAll();
    }
  }

  /**
   * Two readers try one READ each where the count bound leaves room for both but the byte bound for
   * one (each READ is over half the bytes).
   */
  @JCStressTest
  @Description("tryPost vs tryPost, room for one READ (byte bound)")
  @Outcome(
      id = "true, false, 1",
      expect = ACCEPTABLE,
      desc = "the first is taken, the second refused")
  @Outcome(
      id = "false, true, 1",
      expect = ACCEPTABLE,
      desc = "the first is taken, the second refused")
  @Outcome(expect = FORBIDDEN, desc = "both taken (over the bound) or both refused (a lost permit)")
  @State
  public static class TryPostsAgainstTheByteBound {
    final Recording channel = new Recording(8, 1000);

    @Actor
    public void reader1(ZZI_Result r) {
      r.r1 = channel.tryPost(ReadTargets.read(600, "a"));
    }

    @Actor
    public void reader2(ZZI_Result r) {
      r.r2 = channel.tryPost(ReadTargets.read(600, "b"));
    }

    @Arbiter
    public void after(ZZI_Result r) {
      r.r3 = channel.issuedCount();
      channel.endAll();
    }
  }

  /**
   * Two readers post one READ each where there is room for one: one is issued, the other waits; the
   * first one's end issues the waiting one.
   */
  @JCStressTest
  @Description("post vs post, room for one READ; then the issued one ends")
  @Outcome(
      id = "1, 1, 1",
      expect = ACCEPTABLE,
      desc = "one issued, one waiting; the end issued the waiting one")
  @Outcome(expect = FORBIDDEN, desc = "both issued (over the bound), or the waiting one lost")
  @State
  public static class PostsAgainstTheBound {
    final Recording channel = new Recording(1, 1 << 20);

    @Actor
    public void reader1() {
      channel.post(ReadTargets.read(64, "a"));
    }

    @Actor
    public void reader2() {
      channel.post(ReadTargets.read(64, "b"));
    }

    @Arbiter
    public void after(III_Result r) {
      r.r1 = channel.issuedCount();
      r.r2 = channel.completeOldest() ? 1 : 0;
      r.r3 = channel.issuedCount();
      channel.endAll();
    }
  }

  /**
   * The bound is full (one READ in flight of one allowed): a reader posts another while the
   * transport ends the one in flight. The new READ is issued either way: by the post, when the end
   * came first, or by the end, which admits the waiting READ into the room it frees.
   */
  @JCStressTest
  @Description("post vs the end of the READ in flight, the bound full")
  @Outcome(
      id = "0, 1, 1",
      expect = ACCEPTABLE,
      desc = "the end came first: the post found room and issued its READ")
  @Outcome(
      id = "1, 1, 1",
      expect = ACCEPTABLE_INTERESTING,
      desc = "the post came first and waited: the end admitted it")
  @Outcome(
      expect = FORBIDDEN,
      desc = "the new READ never issued (a lost permit), or over the bound")
  @State
  public static class PostVsEnd {
    final Recording channel = new Recording(1, 1 << 20);

    public PostVsEnd() {
      channel.post(ReadTargets.read(64, "in flight"));
    }

    @Actor
    public void reader(III_Result r) {
      channel.post(ReadTargets.read(64, "new"));
    }

    @Actor
    public void transport(III_Result r) {
      r.r1 = channel.completeOldest() ? 1 : 0;
    }

    @Arbiter
    public void after(III_Result r) {
      r.r2 = channel.issuedCount();
      r.r3 = channel.inFlight();
      channel.endAll();
    }
  }
}
