// WithInjectHooks<Lock>: the same lock with InjectHooks in place of its
// hooks, as the lock itself declares it:
//
//   template <class H> using WithHooks = ThisLock<H, ...>;
//
// A library lock, which has no hooks, declares nothing and stays itself:
// injection then reaches only the worker loop. A lock that takes NoHooks
// among its template arguments but does not declare WithHooks would run
// uninjected without a word, so it does not compile.
#pragma once

#include <type_traits>

#include "injectors/injection.h"
#include "locks/hooks.h"

namespace rwstress {

template <class Lock>
concept DeclaresHooks = requires { typename Lock::template WithHooks<InjectHooks>; };

// Whether NoHooks appears among T's template arguments, at any depth, for
// the template shapes the tree uses: only to refuse a lock that forgot
// WithHooks, never to rebind one.
template <class T>
struct MentionsNoHooks : std::false_type {};
template <>
struct MentionsNoHooks<NoHooks> : std::true_type {};
template <template <class...> class T, class... Args>
struct MentionsNoHooks<T<Args...>> : std::bool_constant<(MentionsNoHooks<Args>::value || ...)> {};
template <template <class, bool> class T, class H, bool B>
struct MentionsNoHooks<T<H, B>> : MentionsNoHooks<H> {};
template <template <auto, class> class T, auto V, class H>
struct MentionsNoHooks<T<V, H>> : MentionsNoHooks<H> {};

template <class Lock>
struct WithInjectHooksT {
  static_assert(!MentionsNoHooks<Lock>::value,
                "this lock takes hooks but does not declare "
                "'template <class H> using WithHooks = ...<H>;': its injected run would use NoHooks");
  using type = Lock;
};

template <DeclaresHooks Lock>
struct WithInjectHooksT<Lock> {
  using type = typename Lock::template WithHooks<InjectHooks>;
};

template <class Lock>
using WithInjectHooks = typename WithInjectHooksT<Lock>::type;

}  // namespace rwstress
