package triggers

// SetTestHook makes r call fn at its crash points: "publish" (the request
// is journaled, not yet sent) and "published" (the relay accepted it, the
// journal does not know yet).
func SetTestHook(r *Runner, fn func(stage string)) { r.hook = fn }
