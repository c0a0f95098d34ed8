package io.rdmashuffle.transport.verbs;

import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * RDMA-CM connect requests the responder will accept: source address and port, announced by an
 * authenticated reader on the control connection, with the application it proved and a deadline.
 * Each announcement admits one connect request. Thread-safe.
 */
public final class ConnectExpectations {
  private record Expectation(String application, long deadlineNanos) {}

  private final Map<InetSocketAddress, Expectation> expected = new ConcurrentHashMap<>();
  private final long lifetimeNanos;

  public ConnectExpectations(long lifetimeNanos) {
    this.lifetimeNanos = lifetimeNanos;
  }

  public void expect(InetSocketAddress source, String application) {
    long now = System.nanoTime();
    expected.put(source, new Expectation(application, now + lifetimeNanos));
    purge(now);
  }

  /**
   * Takes the announcement for a connect request from {@code source}.
   *
   * @return the application it was announced for, or null when none (or it expired)
   */
  public String claim(InetSocketAddress source) {
    Expectation e = expected.remove(source);
    if (e == null || System.nanoTime() - e.deadlineNanos > 0) {
      return null;
    }
    return e.application();
  }

  public int size() {
    return expected.size();
  }

  private void purge(long now) {
    for (Iterator<Expectation> i = expected.values().iterator(); i.hasNext(); ) {
      if (now - i.next().deadlineNanos > 0) {
        i.remove();
      }
    }
  }
}
