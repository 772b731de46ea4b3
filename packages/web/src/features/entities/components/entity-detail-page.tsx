import { Navigate, useParams } from 'react-router';
import { EntityDetail } from './entity-detail';

/** Entity detail (/entities/{id}; docs/product.md, The signed-in app): one entity, its neighbourhood, relations and observations. */
export function EntityDetailPage() {
  const { entityId } = useParams();
  if (!entityId) return <Navigate to="/entities" replace />;
  // A fresh screen per entity: selection and layout never carry over to the next one.
  return <EntityDetail key={entityId} entityId={entityId} />;
}
