package io.rdmashuffle.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps up to {@code perPeer} open connections to each (peer, application), opened on first use and
 * replaced when they break; READs are spread over them round-robin. Thread-safe; one per transport
 * user (a shuffle reader, a MapReduce fetcher), closed with it.
 */
public final class ConnectionPool implements AutoCloseable {
  private final Transport transport;
  private final int perPeer;
  private final Map<Key, Slots> peers = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private record Key(PeerAddress peer, String application) {}

  private final class Slots {
    final ReadChannel[] channels = new ReadChannel[perPeer];
    final AtomicInteger next = new AtomicInteger();
  }

  public ConnectionPool(Transport transport, int perPeer) {
    if (perPeer < 1) {
      throw new IllegalArgumentException("perPeer=" + perPeer + ": must be at least 1");
    }
    this.transport = transport;
    this.perPeer = perPeer;
  }

  /** An open connection to {@code peer} for {@code application}, opening one if needed. */
  public ReadChannel channel(PeerAddress peer, String application) throws TransportException {
    Slots s = slots(peer, application);
    int i = Math.floorMod(s.next.getAndIncrement(), perPeer);
    synchronized (s) {
      ReadChannel c = s.channels[i];
      if (c == null || !c.isOpen()) {
        c = open(peer, application);
        s.channels[i] = c;
      }
      return c;
    }
  }

  /**
   * A newly opened connection replacing {@code broken} (which is closed): for the one retry a
   * failed READ gets.
   */
  public ReadChannel replace(ReadChannel broken) throws TransportException {
    Slots s = slots(broken.peer(), broken.application());
    broken.close();
    synchronized (s) {
      for (int i = 0; i < perPeer; i++) {
        if (s.channels[i] == broken || s.channels[i] == null || !s.channels[i].isOpen()) {
          ReadChannel c = open(broken.peer(), broken.application());
          s.channels[i] = c;
          return c;
        }
      }
      // every slot holds another open connection already: use one of those
      return s.channels[Math.floorMod(s.next.getAndIncrement(), perPeer)];
    }
  }

  private Slots slots(PeerAddress peer, String application) throws TransportException {
    if (closed) {
      throw new ConnectionLostException("connection pool is closed", peer, null, null);
    }
    return peers.computeIfAbsent(new Key(peer, application), k -> new Slots());
  }

  private ReadChannel open(PeerAddress peer, String application) throws TransportException {
    ReadChannel c = transport.connect(peer, application);
    if (closed) {
      c.close();
      throw new ConnectionLostException("connection pool is closed", peer, null, null);
    }
    return c;
  }

  /** Closes every connection; READs in flight on them fail as connection lost. */
  @Override
  public void close() {
    closed = true;
    for (Slots s : peers.values()) {
      synchronized (s) {
        for (int i = 0; i < perPeer; i++) {
          if (s.channels[i] != null) {
            s.channels[i].close();
            s.channels[i] = null;
          }
        }
      }
    }
    peers.clear();
  }
}
