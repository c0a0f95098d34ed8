/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.util.NativeAffinity;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * Test helper run inside the DiSNI class loader (NativeLibraryTest): calls every native method of
 * DiSNI with null object ids, and creates an RDMA-CM event channel the way DiSNI users do. Reports
 * each outcome as text ("returned N" or "threw ExceptionClass: message"); the test decides what is
 * right. Any crash would end the JVM instead.
 */
public final class NativeCallsProbe implements Callable<Map<String, String>> {
  @Override
  public Map<String, String> call() throws ReflectiveOperationException {
    Map<String, String> out = new TreeMap<>();
    Constructor<NativeDispatcher> c = NativeDispatcher.class.getDeclaredConstructor();
    c.setAccessible(true);
    NativeDispatcher dispatcher = c.newInstance();
    for (Method m : NativeDispatcher.class.getDeclaredMethods()) {
      if (Modifier.isNative(m.getModifiers())) {
        out.put(m.getName(), invoke(dispatcher, m));
      }
    }
    out.put("NativeAffinity.getAffinity", outcome(NativeAffinity::getAffinity));
    out.put(
        "NativeAffinity.setAffinity(current)",
        outcome(
            () -> {
              NativeAffinity.setAffinity(NativeAffinity.getAffinity());
              return "done";
            }));
    out.put("RdmaEventChannel.createEventChannel", outcome(NativeCallsProbe::eventChannel));
    extras(out);
    return out;
  }

  /** Our own natives (NativeExtras) with null ids, and the wake-up eventfd end to end. */
  private static void extras(Map<String, String> out) {
    out.put("NativeExtras.destroyQp", outcome(() -> NativeExtras.destroyQp(0)));
    out.put("NativeExtras.moveQpToError", outcome(() -> NativeExtras.moveQpToError(0)));
    out.put("NativeExtras.odpCaps", outcome(() -> NativeExtras.odpCaps(0)));
    out.put("NativeExtras.prefetch", outcome(() -> NativeExtras.prefetch(0, 0, 0, false)));
    out.put(
        "NativeExtras.awaitCompletion", outcome(() -> NativeExtras.awaitCompletion(0, 0, -1, 0)));
    out.put("NativeExtras.wake(-1)", outcome(() -> NativeExtras.wake(-1)));
    out.put("NativeExtras.deviceOdpCaps", outcome(() -> NativeExtras.deviceOdpCaps(true).length));
    out.put("NativeExtras.odpReadCheck", outcome(() -> NativeExtras.odpReadCheck(0)));
    out.put(
        "NativeExtras.wakeup",
        outcome(
            () -> {
              int fd = NativeExtras.createWakeup();
              if (fd < 0) {
                return "eventfd failed " + fd;
              }
              int woken = NativeExtras.wake(fd);
              int closed = NativeExtras.closeWakeup(fd);
              return "fd ok, wake " + woken + ", close " + closed;
            }));
  }

  private static Object eventChannel() throws IOException {
    RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
    int destroyed = RdmaCm.open().destroyEventChannel(channel);
    return "created and destroyed (" + destroyed + ")";
  }

  private static String invoke(NativeDispatcher d, Method m) {
    Class<?>[] types = m.getParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      args[i] = zero(types[i]);
    }
    return outcome(
        () -> {
          try {
            return m.invoke(d, args);
          } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception ex ? ex : new RuntimeException(e.getCause());
          }
        });
  }

  private static Object zero(Class<?> t) {
    if (t == long.class) {
      return 0L;
    } else if (t == int.class) {
      return 0;
    } else if (t == short.class) {
      return (short) 0;
    } else if (t == byte.class) {
      return (byte) 0;
    }
    throw new IllegalArgumentException("unexpected parameter type " + t);
  }

  private static String outcome(Callable<?> call) {
    try {
      return "returned " + call.call();
    } catch (Exception | LinkageError e) {
      return "threw " + e.getClass().getName() + ": " + e.getMessage();
    }
  }
}
