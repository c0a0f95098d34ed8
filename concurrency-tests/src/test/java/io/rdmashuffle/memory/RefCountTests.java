/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLI_Result;
import org.openjdk.jcstress.infra.results.LL_Result;
import org.openjdk.jcstress.infra.results.LZZ_Result;
import org.openjdk.jcstress.infra.results.ZZZ_Result;

/**
 * {@link RefCount}'s contract raced, two threads at a time: whatever the interleaving, exactly one
 * call says "free now" (never none: a leak; never two: a double free), a reference is taken only
 * while the count is open, and a refused release or a second close changes nothing.
 */
public final class RefCountTests {
  private RefCountTests() {}

  /**
   * An owner closes a withdrawable count while a reader takes an in-flight reference and gives it
   * back. The reader's reference is refused once closed; whoever drops the last reference frees.
   */
  @JCStressTest
  @Description("close() vs tryRetain() then release() on a withdrawable count")
  @Outcome(
      id = "FREE_NOW, false, false",
      expect = ACCEPTABLE,
      desc = "close first: the reader is refused, close frees")
  @Outcome(
      id = "FREE_NOW, true, false",
      expect = ACCEPTABLE,
      desc = "the reader retained and released before close: close frees")
  @Outcome(
      id = "STILL_IN_USE, true, true",
      expect = ACCEPTABLE_INTERESTING,
      desc = "close came between the reader's retain and release: the release frees")
  @Outcome(expect = FORBIDDEN, desc = "freed twice, never, or a reference taken after close")
  @State
  public static class CloseVsRetainRelease {
    final RefCount count = RefCount.withdrawable("region");

    @Actor
    public void owner(LZZ_Result r) {
      r.r1 = count.close();
    }

    @Actor
    public void reader(LZZ_Result r) {
      if (count.tryRetain()) {
        r.r2 = true;
        r.r3 = count.release();
      }
    }
  }

  /**
   * The owner closes while the last in-flight reference is given back: exactly one of the two
   * frees, and the count ends freed.
   */
  @JCStressTest
  @Description("close() vs the last in-flight release() on a withdrawable count")
  @Outcome(
      id = "FREE_NOW, false, true",
      expect = ACCEPTABLE,
      desc = "release first, then close: close frees")
  @Outcome(
      id = "STILL_IN_USE, true, true",
      expect = ACCEPTABLE,
      desc = "close first: the release frees")
  @Outcome(expect = FORBIDDEN, desc = "freed twice or never, or not freed at the end")
  @State
  public static class CloseVsRelease {
    final RefCount count = RefCount.withdrawable("region");

    public CloseVsRelease() {
      count.retain(); // a READ in flight
    }

    @Actor
    public void owner(LZZ_Result r) {
      r.r1 = count.close();
    }

    @Actor
    public void reader(LZZ_Result r) {
      r.r2 = count.release();
    }

    @Arbiter
    public void after(LZZ_Result r) {
      r.r3 = count.isFreed();
    }
  }

  /**
   * A plain count (a pooled buffer): its last holder releases while another thread tries to take a
   * reference. Either the retain comes first and the release is not the last, or the release frees
   * and the retain is refused; a retain of a freed count would be a use after free.
   */
  @JCStressTest
  @Description("the last release() vs tryRetain() on a plain count")
  @Outcome(
      id = "true, false, true",
      expect = ACCEPTABLE,
      desc = "release first: it frees, the retain is refused")
  @Outcome(
      id = "false, true, false",
      expect = ACCEPTABLE,
      desc = "retain first: the release is not the last, the count stays open")
  @Outcome(expect = FORBIDDEN, desc = "a reference taken on a freed count, or a lost free")
  @State
  public static class LastReleaseVsRetain {
    final RefCount count = RefCount.open("buffer");

    @Actor
    public void holder(ZZZ_Result r) {
      r.r1 = count.release();
    }

    @Actor
    public void other(ZZZ_Result r) {
      r.r2 = count.tryRetain();
    }

    @Arbiter
    public void after(ZZZ_Result r) {
      r.r3 = count.isFreed();
    }
  }

  /**
   * A withdrawable count already closed with one reference in flight: its last release frees, and a
   * concurrent tryRetain is refused whether it comes before or after (closed refuses new uses).
   */
  @JCStressTest
  @Description("the last in-flight release() vs tryRetain() on a closed withdrawable count")
  @Outcome(id = "true, false, true", expect = ACCEPTABLE, desc = "refused, the release frees")
  @Outcome(expect = FORBIDDEN, desc = "a reference taken after close, or a lost free")
  @State
  public static class ClosedLastReleaseVsRetain {
    final RefCount count = RefCount.withdrawable("region");

    public ClosedLastReleaseVsRetain() {
      count.retain();
      count.close();
    }

    @Actor
    public void reader(ZZZ_Result r) {
      r.r1 = count.release();
    }

    @Actor
    public void other(ZZZ_Result r) {
      r.r2 = count.tryRetain();
    }

    @Arbiter
    public void after(ZZZ_Result r) {
      r.r3 = count.isFreed();
    }
  }

  /** Two closes of one withdrawable count, no READ in flight: only one frees. */
  @JCStressTest
  @Description("close() vs close() on a withdrawable count")
  @Outcome(id = "FREE_NOW, ALREADY_CLOSED", expect = ACCEPTABLE, desc = "the first frees")
  @Outcome(id = "ALREADY_CLOSED, FREE_NOW", expect = ACCEPTABLE, desc = "the first frees")
  @Outcome(expect = FORBIDDEN, desc = "freed twice or never")
  @State
  public static class DoubleClose {
    final RefCount count = RefCount.withdrawable("region");

    @Actor
    public void first(LL_Result r) {
      r.r1 = count.close();
    }

    @Actor
    public void second(LL_Result r) {
      r.r2 = count.close();
    }
  }

  /**
   * Two closes while a READ is in flight: one closes (still in use), the other does nothing, and
   * the count stays closed with the reference, not freed.
   */
  @JCStressTest
  @Description("close() vs close() on a withdrawable count with a reference in flight")
  @Outcome(
      id = "STILL_IN_USE, ALREADY_CLOSED, 1",
      expect = ACCEPTABLE,
      desc = "the first closes, the reference remains")
  @Outcome(
      id = "ALREADY_CLOSED, STILL_IN_USE, 1",
      expect = ACCEPTABLE,
      desc = "the first closes, the reference remains")
  @Outcome(expect = FORBIDDEN, desc = "closed twice, never, or the in-flight reference lost")
  @State
  public static class DoubleCloseInUse {
    final RefCount count = RefCount.withdrawable("region");

    public DoubleCloseInUse() {
      count.retain();
    }

    @Actor
    public void first(LLI_Result r) {
      r.r1 = count.close();
    }

    @Actor
    public void second(LLI_Result r) {
      r.r2 = count.close();
    }

    @Arbiter
    public void after(LLI_Result r) {
      r.r3 = count.isOpen() || count.isFreed() ? -1 : count.get();
    }
  }
}
