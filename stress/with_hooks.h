// WithInjectHooks<Lock>: the same lock with InjectHooks in place of NoHooks,
// wherever NoHooks appears among its template arguments (recursively, so
// SemaphoreAsMutex<SemI386<NoHooks>> becomes
// SemaphoreAsMutex<SemI386<InjectHooks>>). A library lock, which has no
// hooks, stays itself: injection then reaches only the worker loop.
#pragma once

#include "injectors/injection.h"
#include "locks/hooks.h"

namespace rwstress {

template <class T>
struct WithInjectHooksT {
  using type = T;
};

template <>
struct WithInjectHooksT<NoHooks> {
  using type = InjectHooks;
};

template <template <class...> class T, class... Args>
struct WithInjectHooksT<T<Args...>> {
  using type = T<typename WithInjectHooksT<Args>::type...>;
};

template <template <class, bool> class T, class H, bool B>
struct WithInjectHooksT<T<H, B>> {
  using type = T<typename WithInjectHooksT<H>::type, B>;
};

template <template <auto, class> class T, auto V, class H>
struct WithInjectHooksT<T<V, H>> {
  using type = T<V, typename WithInjectHooksT<H>::type>;
};

template <class T>
using WithInjectHooks = typename WithInjectHooksT<T>::type;

}  // namespace rwstress
