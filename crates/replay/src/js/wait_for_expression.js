async (check, budgetMs) => {
  const deadline = performance.now() + budgetMs;
  let last = null;
  for (;;) {
    try {
      if (await check()) return { ok: true };
      last = null;
    } catch (e) {
      last = String((e && e.message) || e);
    }
    if (performance.now() >= deadline) return { ok: false, last };
    await new Promise((resolve) => {
      let done = false;
      const finish = () => { if (!done) { done = true; resolve(); } };
      requestAnimationFrame(finish);
      setTimeout(finish, 50);
    });
  }
}
