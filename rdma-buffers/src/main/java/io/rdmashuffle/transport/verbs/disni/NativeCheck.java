/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.impl.NativeDispatcher;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The first use of DiSNI's native side, run by {@link io.rdmashuffle.transport.verbs.NativeLibrary}
 * inside the DiSNI class loader: initializes both DiSNI classes that load the library (so it is
 * loaded while the extracted file still exists), then builds a {@code NativeDispatcher}, whose
 * constructor checks the JNI version, and reports what the library says about itself.
 */
public final class NativeCheck implements Callable<Map<String, Integer>> {
  @Override
  public Map<String, Integer> call() throws IOException, ReflectiveOperationException {
    NativeDispatcher dispatcher = newDispatcher();
    // NativeAffinity loads the library from its own static initializer: do it now, too.
    Class.forName("com.ibm.disni.util.NativeAffinity", true, NativeCheck.class.getClassLoader());
    Map<String, Integer> info = new LinkedHashMap<>();
    info.put("version", dispatcher._getVersion());
    info.put("sockAddrInSize", dispatcher._getSockAddrInSize());
    info.put("sendWrSize", dispatcher._getIbvSendWRSize());
    info.put("recvWrSize", dispatcher._getIbvRecvWRSize());
    info.put("sgeSize", dispatcher._getIbvSgeSize());
    info.put("wcSize", dispatcher._getIbvWCSize());
    info.put("remoteAddressOffset", dispatcher._getRemoteAddressOffset());
    info.put("rkeyOffset", dispatcher._getRKeyOffset());
    return info;
  }

  /**
   * NativeDispatcher's constructor is package-private: DiSNI builds it inside RdmaProvider. It
   * throws IOException when the library's version is not the one DiSNI needs, and
   * UnsatisfiedLinkError when the library is not one for DiSNI at all.
   */
  private static NativeDispatcher newDispatcher() throws IOException, ReflectiveOperationException {
    Constructor<NativeDispatcher> c = NativeDispatcher.class.getDeclaredConstructor();
    c.setAccessible(true);
    try {
      return c.newInstance();
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof Error error) {
        throw error; // UnsatisfiedLinkError: the library lacks DiSNI's functions
      }
      throw e;
    }
  }
}
