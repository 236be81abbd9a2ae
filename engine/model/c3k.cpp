#include "model/c3k.h"

namespace ywb::model {

C3kImpl::C3kImpl(const C3kOptions& o)
    : C3Impl(C3Options(o.c1(), o.c2(), o.n()).shortcut(o.shortcut()).g(o.g()).e(o.e()), o.k(), o.k()) {}

}  // namespace ywb::model
