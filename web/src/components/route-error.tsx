import { Link, useRouteError } from 'react-router';

/**
 * A page that failed to load or render (a lazily loaded chunk the network dropped, a
 * bug): said plainly with a way out, instead of React Router's developer screen.
 */
export function RouteError() {
  const error = useRouteError();
  const message = error instanceof Error ? error.message : String(error);
  return (
    <main id="content">
      <h1>This page could not be shown</h1>
      <div role="alert" className="note error">
        <strong>Error: </strong>
        {message}
      </div>
      <p>
        <a href={window.location.href}>Reload the page</a> or <Link to="/">go to your projects</Link>.
      </p>
    </main>
  );
}
