/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The poller lock's account of readers polling, as the agent thread asks for it. */
class PollerLockTest {
  /** A reader polls once: its READ is ready after one round. */
  private static void oneHelp(PollerLock lock) {
    AtomicBoolean done = new AtomicBoolean();
    assertTrue(lock.help(done::get, Long.MAX_VALUE, () -> done.set(true)));
  }

  @Test
  void noReaderEverPolled() {
    PollerLock lock = new PollerLock();
    assertFalse(lock.readersActive());
    assertFalse(lock.readersActive());
  }

  @Test
  void readersStayActiveForQuietAsksAfterTheLastHelp() {
    PollerLock lock = new PollerLock();
    oneHelp(lock);
    // a reader that posts and waits in turn leaves gaps longer than one of the agent's parks:
    // the agent keeps parking beside it until QUIET_ASKS asks in a row found no reader
    for (int ask = 0; ask < PollerLock.QUIET_ASKS; ask++) {
      assertTrue(lock.readersActive(), "ask " + ask);
    }
    assertFalse(lock.readersActive());
    assertFalse(lock.readersActive());
    oneHelp(lock);
    assertTrue(lock.readersActive());
  }

  @Test
  void aReaderPollingNowIsActive() throws Exception {
    PollerLock lock = new PollerLock();
    lock.lock(); // the reader's tries fail: it spins, counted as polling, until released
    AtomicBoolean done = new AtomicBoolean();
    Thread reader = new Thread(() -> lock.help(done::get, Long.MAX_VALUE, () -> done.set(true)));
    reader.start();
    while (!lock.readersActive()) {
      Thread.onSpinWait(); // until the reader started polling
    }
    for (int ask = 0; ask < 4 * PollerLock.QUIET_ASKS; ask++) {
      assertTrue(lock.readersActive(), "ask " + ask);
    }
    lock.unlock();
    reader.join();
  }
}
