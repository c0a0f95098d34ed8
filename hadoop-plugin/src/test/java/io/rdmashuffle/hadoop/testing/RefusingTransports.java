/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.testing;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.MemoryAccounting;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.memory.RegistrationException;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.provider.Availability;
import io.rdmashuffle.transport.provider.PinnedMemory;
import io.rdmashuffle.transport.provider.TransportContext;
import io.rdmashuffle.transport.provider.TransportProvider;
import io.rdmashuffle.transport.tcp.TcpTransportProvider;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * tcp transports whose registrar refuses to register served memory on demand, as a NIC does at its
 * memlock limit: for tests of what serving does when registration fails.
 */
public final class RefusingTransports {
  private volatile boolean refuse;

  /** Registrations of served memory refused so far. */
  public final AtomicInteger refused = new AtomicInteger();

  /** Calls of {@link Transport#withdrawApplication} so far. */
  public final AtomicInteger withdrawals = new AtomicInteger();

  public void refuse(boolean value) {
    refuse = value;
  }

  /** Starts tcp transports whose registrations of served memory fail while refusing. */
  public TransportSelector selector() {
    TcpTransportProvider tcp = new TcpTransportProvider();
    // no verbs here: "auto" picks tcp, as on a node without an RDMA device
    TransportProvider noVerbs =
        new TransportProvider() {
          @Override
          public TransportKind kind() {
            return TransportKind.VERBS;
          }

          @Override
          public Availability probe(RdmaConf conf) {
            return Availability.unavailable("no RDMA device (test)", List.of());
          }

          @Override
          public Transport start(TransportContext context, PinnedMemory pinned)
              throws TransportStartException {
            throw new TransportStartException("no RDMA device (test)");
          }
        };
    return new TransportSelector(
        List.of(
            noVerbs,
            new TransportProvider() {
              @Override
              public TransportKind kind() {
                return TransportKind.TCP;
              }

              @Override
              public Availability probe(RdmaConf conf) {
                return tcp.probe(conf);
              }

              @Override
              public Transport start(TransportContext context, PinnedMemory pinned)
                  throws TransportStartException {
                return new Refusing(tcp.start(context, pinned));
              }
            }));
  }

  private final class Refusing extends ForwardingTransport {
    private final MemoryRegistrar registrar;

    Refusing(Transport t) {
      super(t);
      MemoryRegistrar real = t.registrar();
      this.registrar =
          new MemoryRegistrar() {
            @Override
            public RegisteredRegion register(
                MemoryPiece piece, Access access, String owner, Runnable onFreed)
                throws RegistrationException {
              if (refuse && access == Access.REMOTE_READ) {
                refused.incrementAndGet();
                throw new RegistrationException("memlock limit reached (test)");
              }
              return real.register(piece, access, owner, onFreed);
            }

            @Override
            public MemoryAccounting accounting() {
              return real.accounting();
            }
          };
    }

    @Override
    public MemoryRegistrar registrar() {
      return registrar;
    }

    @Override
    public void withdrawApplication(String application) {
      withdrawals.incrementAndGet();
      super.withdrawApplication(application);
    }
  }
}
