new Promise((resolve) => {
  let done = false;
  const finish = () => { if (!done) { done = true; resolve(document.title); } };
  requestAnimationFrame(finish);
  setTimeout(finish, 50);
})
