new Promise((resolve) => {
  const done = () => resolve(location.href);
  if (document.readyState === 'complete' && location.href !== 'about:blank') done();
  else addEventListener('load', done, { once: true });
})
