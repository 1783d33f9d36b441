new Promise((resolve) => setTimeout(resolve, 0))
