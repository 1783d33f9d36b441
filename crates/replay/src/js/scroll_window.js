(x, y) => window.scrollTo(x, y)
