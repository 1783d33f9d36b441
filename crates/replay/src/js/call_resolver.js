(name, spec) => (typeof globalThis[name] === 'function' ? globalThis[name](spec) : { ok: false, resolverMissing: true })
